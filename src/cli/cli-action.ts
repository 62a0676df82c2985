import { failureText, type FailureContext } from './cli-error.js';

export interface CliActionOptions extends FailureContext {
  /**
   * A server (a role, the demo, the reference target): a failed start exits at once, as what it had
   * opened by then (Redis connections, workers, a listener) would keep the process running.
   */
  server?: boolean;
}

/**
 * A commander action with the CLI's one error path: a number returned is the exit code (sync's 3
 * when held, status's 1 when the target is unhealthy); anything thrown prints one line to stderr
 * (cli-error.ts) and exits 1.
 */
export function cliAction<A extends unknown[]>(
  command: string,
  run: (...args: A) => Promise<number | void> | number | void,
  options: CliActionOptions = {},
): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      const code = await run(...args);
      if (typeof code === 'number') process.exitCode = code;
    } catch (error) {
      process.stderr.write(`${failureText(command, error, options)}\n`);
      if (options.server) process.exit(1);
      process.exitCode = 1;
    }
  };
}

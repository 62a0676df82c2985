import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BridgeProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited; SIGKILL after the timeout. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/**
 * Runs `scim-bridge <args>` from the TypeScript sources in a child process (a separate Node process
 * with its own connections, as in production), and resolves once it logs that it listens.
 */
export async function spawnBridge(
  args: string[],
  env: Record<string, string>,
  readyText = '"listening"',
): Promise<BridgeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SYNC_SCHEDULE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bridge did not start:\n${output}`)), 30_000);
    const check = () => {
      if (output.includes(readyText)) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bridge exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    child,
    output: () => output,
    stop: (signal = 'SIGTERM', timeoutMs = 15_000) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
        child.kill(signal);
      }),
  };
}

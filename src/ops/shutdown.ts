import type { Logger } from './logger.js';

/**
 * Runs `close` once on SIGTERM or SIGINT, then exits 0; exits 1 if it takes longer than the timeout.
 * A second signal exits at once.
 */
export function exitOnSignals(logger: Logger, timeoutMs: number, close: () => Promise<void>): void {
  let closing = false;
  const handle = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal, timeoutMs }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handle);
  process.once('SIGINT', handle);
}

/**
 * Logs an unhandled promise rejection and keeps serving. Node's default ends the process, so one
 * stray promise of one request (a Redis command that times out after its request was answered)
 * would take every other request and the workers with it. Uncaught exceptions still end the
 * process: after one, its state is unknown. Returns the function that removes the handler.
 */
export function keepServingOnUnhandledRejections(logger: Logger): () => void {
  const handler = (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection: logged, the process keeps serving');
  };
  process.on('unhandledRejection', handler);
  return () => process.off('unhandledRejection', handler);
}

import type { Owner } from '../domain/desired-change.js';
import type { Logger } from '../ops/logger.js';
import type { Keys } from '../store/keys.js';
import { migrateOwners } from '../store/owner-migration.js';
import type { RedisClient } from '../store/redis-connection.js';

const RETRY_MS = 5000;

/**
 * Gives every identity stored before owners existed its owner (store/owner-migration.ts), at the
 * start of every process (serve and worker alike), before it serves or works: once done, the
 * marker makes this a single read. A process that starts while Redis is down tries again every
 * few seconds in the background until it is done (meanwhile the store treats an identity without
 * an owner as it did before owners existed). Returns a stop function for shutdown.
 */
export async function migrateOwnersAtStart(
  redis: RedisClient,
  keys: Keys,
  directory: Owner,
  logger: Logger,
): Promise<() => void> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async (): Promise<boolean> => {
    try {
      const result = await migrateOwners(redis, keys, directory);
      if (result.ran) logger.info({ ...result, directory }, 'identities stored before owners now have one');
      return true;
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'owner migration could not run yet; retrying',
      );
      return false;
    }
  };
  const retry = () => {
    timer = setTimeout(() => {
      void attempt().then((done) => {
        if (!done && !stopped) retry();
      });
    }, RETRY_MS);
    timer.unref();
  };
  if (!(await attempt())) retry();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

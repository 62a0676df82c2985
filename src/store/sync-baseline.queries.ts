import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/**
 * The last completed sync (not a dry run, not `except`) that read the named source for the same
 * input (`owner`, its directory; a record from before owners were recorded matches any), with the
 * number of users it listed: the baseline of SOURCE_SHRINK_LIMIT. Reads the history newest first,
 * only the fields it needs.
 */
export async function lastCompletedOf(
  redis: RedisClient,
  keys: Keys,
  { source, owner, except }: { source: string; owner: string | undefined; except: string },
): Promise<{ jobId: string; users: number } | undefined> {
  const ids = await storeCall(() => redis.zrevrange(keys.syncRuns(), 0, -1));
  for (let i = 0; i < ids.length; i += 20) {
    const batch = ids.slice(i, i + 20).filter((id) => id !== except);
    // A link-only run removes nothing and is never held: it is no baseline for the shrink guard.
    const fields = ['state', 'dryRun', 'source', 'sourceUsers', 'owner', 'linkOnly'] as const;
    const rows = await storeCall(() => Promise.all(batch.map((id) => redis.hmget(keys.sync(id), ...fields))));
    for (const [n, [state, dryRun, name, users, by, linkOnly]] of rows.entries()) {
      const jobId = batch[n];
      const sameInput = by === null || owner === undefined || by === owner;
      const applied = state === 'completed' && dryRun !== '1' && linkOnly !== '1';
      if (jobId && applied && name === source && sameInput && users) return { jobId, users: Number(users) };
    }
  }
  return undefined;
}

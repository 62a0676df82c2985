import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/** The last full reconciliation that completed and wrote (not a dry run). */
export interface LastFullSync {
  jobId: string;
  /** When it finished (ms). */
  finishedAt: number;
}

const BATCH = 20;

/**
 * Reads the sync history (`P:sync:runs`, newest first) for the last completed full sync, reading
 * only the three fields it needs of each record. Key layout: keys.ts.
 */
export class SyncHistoryQueries {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
  ) {}

  async lastFullSync(): Promise<LastFullSync | undefined> {
    for (let start = 0; ; start += BATCH) {
      const ids = await storeCall(() => this.redis.zrevrange(this.keys.syncRuns(), start, start + BATCH - 1));
      const fields = await storeCall(() =>
        Promise.all(ids.map((id) => this.redis.hmget(this.keys.sync(id), 'state', 'dryRun', 'finishedAt'))),
      );
      for (const [n, [state, dryRun, finishedAt]] of fields.entries()) {
        const jobId = ids[n];
        if (jobId && state === 'completed' && dryRun !== '1' && finishedAt) {
          return { jobId, finishedAt: Number(finishedAt) };
        }
      }
      if (ids.length < BATCH) return undefined;
    }
  }
}

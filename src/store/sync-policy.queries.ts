import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

export interface RecordedPolicy {
  fingerprint: string;
  settings: unknown;
}

/**
 * The scope and mapping of the input's last completed sync that applied (not a dry run, not a
 * link-only run, not `except`): what a changed configuration is compared with. `null`: that sync
 * recorded none (it ran before scopes and mappings existed: the default); undefined: none applied.
 */
export async function lastPolicyOf(
  redis: RedisClient,
  keys: Keys,
  owner: string,
  except: string,
): Promise<RecordedPolicy | null | undefined> {
  const ids = await storeCall(() => redis.zrevrange(keys.syncRuns(), 0, -1));
  for (let i = 0; i < ids.length; i += 20) {
    const batch = ids.slice(i, i + 20).filter((id) => id !== except);
    const fields = ['state', 'dryRun', 'owner', 'linkOnly', 'policy'] as const;
    const rows = await storeCall(() => Promise.all(batch.map((id) => redis.hmget(keys.sync(id), ...fields))));
    for (const [state, dryRun, by, linkOnly, policy] of rows) {
      if (state !== 'completed' || dryRun === '1' || linkOnly === '1' || by !== owner) continue;
      return policy ? (JSON.parse(policy) as RecordedPolicy) : null;
    }
  }
  return undefined;
}

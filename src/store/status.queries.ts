import type { IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { SLICE_WEIGHT } from './script-slices.js';

/**
 * Counts for GET /admin/status and the guards of syncs and deltas (key layout: keys.ts): O(1)
 * commands, and the intersection of the managed set with the desired one per kind, counted a chunk
 * at a time so that Redis never stops for it.
 */

export interface KindCounts {
  /** Identities in the desired state. */
  desired: number;
  /** Identities the bridge created or adopted on the target and still wants there. */
  managed: number;
  /**
   * Identities the bridge manages on the target but no longer wants: deactivated there
   * (DEPROVISION=deactivate), or about to be deprovisioned (then also counted as pending).
   */
  deprovisioned: number;
}

export interface StoreCounts {
  users: KindCounts;
  groups: KindCounts;
  /** Identities in permanent failure. */
  failures: number;
  /** Identities with a change not reconciled yet. */
  pending: number;
  /** Open conflicts between inputs (GET /admin/conflicts). */
  conflicts: number;
  /** Desired identities per owning input (scim, events, okta, directory:<name>). */
  owners: Record<string, { users: number; groups: number }>;
}

/**
 * Of the desired identities ranked ARGV[1] to ARGV[2] in a desired zset (KEYS[2]), how many were
 * read and how many are in the managed set (KEYS[1]): two commands (SMISMEMBER: Redis 6.2 and
 * later, as the rest of the bridge needs).
 */
const MANAGED_IN_RANK_RANGE = new LuaScript(`
local ids = redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[2])
local n = 0
if #ids > 0 then
  for _, hit in ipairs(redis.call('SMISMEMBER', KEYS[1], unpack(ids))) do n = n + hit end
end
return {#ids, n}
`);

/**
 * Desired identities looked at per script: as many as SLICE_WEIGHT gives a slice of the scripts
 * of a sync (script-slices.ts), in two commands. 2,000 a call held Redis for 4–8 ms at
 * 100,000 users beside a sync, up to 44 ms at 1,000,000; a single intersection (ZINTERCARD) of
 * 1,000,000 holds it for about 0.4 s, every command of every process waiting.
 */
export const COUNT_CHUNK = SLICE_WEIGHT;

/**
 * How long GET /admin/status may answer with the managed count it last counted, after counting
 * `walked` desired identities: never below 10,000 (counted afresh at each call); above, 100 ms per
 * 1,000 (10 s at 100,000, 100 s at 1,000,000), so that a dashboard polling the status every few
 * seconds keeps the counting under about 1% of Redis's time.
 */
export function managedCountReuseMs(walked: number): number {
  return walked < 10_000 ? 0 : (walked / 1000) * 100;
}

interface CountedManaged {
  counts: Pick<KindCounts, 'managed' | 'deprovisioned'>;
  at: number;
  reuseMs: number;
}

export class StatusQueries {
  private readonly counted = new Map<IdentityKind, CountedManaged>();

  /** `clock`: what the status's reuse of a large managed count is timed by. */
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    private readonly clock: { now(): number } = Date,
  ) {}

  async counts(): Promise<StoreCounts> {
    const k = this.keys;
    const [users, managedUsers, groups, managedGroups, failures, pending, pendingForSync, conflicts] =
      await storeCall(() =>
        Promise.all([
          this.redis.zcard(k.all('user')),
          this.redis.scard(k.managed('user')),
          this.redis.zcard(k.all('group')),
          this.redis.scard(k.managed('group')),
          this.redis.zcard(k.failures()),
          this.redis.zcard(k.dirty()),
          this.redis.zcard(k.dirtyForSync()),
          this.redis.zcard(k.conflictsOpen()),
        ]),
      );
    const [usersManaged, groupsManaged, owners] = await Promise.all([
      this.managedCounts('user', managedUsers),
      this.managedCounts('group', managedGroups),
      this.ownerCounts(),
    ]);
    return {
      users: { desired: users, ...usersManaged },
      groups: { desired: groups, ...groupsManaged },
      failures,
      pending: pending + pendingForSync,
      conflicts,
      owners,
    };
  }

  /** Desired identities per owner (P:owners, P:K:own:<owner>), owners with none left out. */
  async ownerCounts(): Promise<Record<string, { users: number; groups: number }>> {
    const owners = (await storeCall(() => this.redis.smembers(this.keys.owners()))).sort();
    const counts = await storeCall(() =>
      Promise.all(
        owners.flatMap((owner) => [
          this.redis.zcard(this.keys.owned('user', owner)),
          this.redis.zcard(this.keys.owned('group', owner)),
        ]),
      ),
    );
    const out: Record<string, { users: number; groups: number }> = {};
    owners.forEach((owner, n) => {
      const users = counts[2 * n] ?? 0;
      const groups = counts[2 * n + 1] ?? 0;
      if (users + groups > 0) out[owner] = { users, groups };
    });
    return out;
  }

  /**
   * How many identities of a kind the bridge manages and still wants; of one input's identities
   * with `owner`. Counted over the desired zset a chunk at a time: exact while nothing changes,
   * within the changes made meanwhile otherwise.
   */
  async managedAndDesired(kind: IdentityKind, options: { owner?: string | undefined } = {}): Promise<number> {
    return (await this.countManaged(kind, options.owner)).managed;
  }

  /**
   * The status's managed and deprovisioned counts, given the managed set's size now: large ones
   * are reused for a while (managedCountReuseMs), both from the same count.
   */
  private async managedCounts(
    kind: IdentityKind,
    inManagedSet: number,
  ): Promise<Pick<KindCounts, 'managed' | 'deprovisioned'>> {
    const last = this.counted.get(kind);
    if (last && this.clock.now() - last.at < last.reuseMs) return last.counts;
    const { managed, walked } = await this.countManaged(kind, undefined);
    const counts = { managed, deprovisioned: Math.max(0, inManagedSet - managed) };
    this.counted.set(kind, { counts, at: this.clock.now(), reuseMs: managedCountReuseMs(walked) });
    return counts;
  }

  private async countManaged(
    kind: IdentityKind,
    owner: string | undefined,
  ): Promise<{ managed: number; walked: number }> {
    const desired = owner === undefined ? this.keys.all(kind) : this.keys.owned(kind, owner);
    const keys = [this.keys.managed(kind), desired];
    let managed = 0;
    for (let start = 0; ; start += COUNT_CHUNK) {
      const range = [start, start + COUNT_CHUNK - 1];
      const [read, hits] = (await storeCall(() => MANAGED_IN_RANK_RANGE.run(this.redis, keys, range))) as [
        number,
        number,
      ];
      managed += hits;
      if (read < COUNT_CHUNK) return { managed, walked: start + read };
    }
  }

  failureCount(): Promise<number> {
    return storeCall(() => this.redis.zcard(this.keys.failures()));
  }
}

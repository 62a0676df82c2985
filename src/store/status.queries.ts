import type { IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/**
 * Counts for GET /admin/status and the gauges of /metrics (key layout: keys.ts): O(1) commands,
 * and one intersection of the managed set with the desired one per kind.
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
 * Members of the managed set (KEYS[1]) that are in the desired zset (KEYS[2]): what ZINTERCARD
 * answers on Redis 7, for older servers.
 */
const MANAGED_AND_DESIRED = new LuaScript(`
local n = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('ZSCORE', KEYS[2], id) then n = n + 1 end
end
return n
`);

export class StatusQueries {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
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
    const [usersWanted, groupsWanted, owners] = await Promise.all([
      this.managedAndDesired('user'),
      this.managedAndDesired('group'),
      this.ownerCounts(),
    ]);
    return {
      users: { desired: users, managed: usersWanted, deprovisioned: Math.max(0, managedUsers - usersWanted) },
      groups: {
        desired: groups,
        managed: groupsWanted,
        deprovisioned: Math.max(0, managedGroups - groupsWanted),
      },
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
   * How many identities of a kind the bridge manages and still wants (ZINTERCARD, Redis ≥ 7); of
   * one input's identities with `owner`.
   */
  async managedAndDesired(
    kind: IdentityKind,
    options: { script?: boolean; owner?: string | undefined } = {},
  ): Promise<number> {
    const desired = options.owner === undefined ? this.keys.all(kind) : this.keys.owned(kind, options.owner);
    const keys = [this.keys.managed(kind), desired];
    if (!options.script) {
      try {
        return await storeCall(() => this.redis.zintercard(2, ...keys));
      } catch (error) {
        if (!(error instanceof Error && /unknown command/i.test(error.message))) throw error;
      }
    }
    return Number(await storeCall(() => MANAGED_AND_DESIRED.run(this.redis, keys)));
  }

  failureCount(): Promise<number> {
    return storeCall(() => this.redis.zcard(this.keys.failures()));
  }
}

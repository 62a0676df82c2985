import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

/**
 * Counts for GET /admin/status and the gauges of /metrics, each a single O(1) Redis command
 * (key layout: keys.ts).
 */

export interface KindCounts {
  /** Identities in the desired state. */
  desired: number;
  /** Identities the bridge created or adopted on the target. */
  managed: number;
}

export interface StoreCounts {
  users: KindCounts;
  groups: KindCounts;
  /** Identities in permanent failure. */
  failures: number;
  /** Identities with a change not reconciled yet. */
  pending: number;
}

export class StatusQueries {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
  ) {}

  async counts(): Promise<StoreCounts> {
    const k = this.keys;
    const [users, managedUsers, groups, managedGroups, failures, pending, pendingForSync] = await storeCall(
      () =>
        Promise.all([
          this.redis.zcard(k.all('user')),
          this.redis.scard(k.managed('user')),
          this.redis.zcard(k.all('group')),
          this.redis.scard(k.managed('group')),
          this.redis.zcard(k.failures()),
          this.redis.zcard(k.dirty()),
          this.redis.zcard(k.dirtyForSync()),
        ]),
    );
    return {
      users: { desired: users, managed: managedUsers },
      groups: { desired: groups, managed: managedGroups },
      failures,
      pending: pending + pendingForSync,
    };
  }

  failureCount(): Promise<number> {
    return storeCall(() => this.redis.zcard(this.keys.failures()));
  }
}

import type { PlatformHealthState } from '../ops/metrics.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';

export interface PlatformHealthRecord {
  state: PlatformHealthState;
  /** ISO time of the last change of state. */
  since: string;
  detail?: string;
}

/**
 * The target's health as the workers last saw it, shared through Redis so that /readyz and
 * /admin/status of any process report it. Written only when the state changes.
 */
export class PlatformHealthStore {
  private lastSeen: { state: PlatformHealthState; at: number } | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async read(): Promise<PlatformHealthRecord> {
    const record = await this.redis.hgetall(this.keys.platformHealth());
    if (!record.state) return { state: 'reachable', since: new Date(0).toISOString() };
    return {
      state: record.state as PlatformHealthState,
      since: record.since ?? new Date(0).toISOString(),
      ...(record.detail ? { detail: record.detail } : {}),
    };
  }

  /** Another process may have changed the state, so a cached "same state" is trusted for 5 s only. */
  async write(state: PlatformHealthState, detail: string | undefined, now: number): Promise<boolean> {
    if (this.lastSeen?.state === state && now - this.lastSeen.at < 5000) return false;
    const key = this.keys.platformHealth();
    const current = await this.redis.hget(key, 'state');
    this.lastSeen = { state, at: now };
    if (current === state || (current === null && state === 'reachable')) return false;
    await this.redis
      .multi()
      .del(key)
      .hset(key, { state, since: new Date(now).toISOString(), ...(detail ? { detail } : {}) })
      .exec();
    return true;
  }
}

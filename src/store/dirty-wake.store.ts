import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';

/**
 * The feeder's wake-up (keys.ts, P:dirty:wake): the desired-state batch that writes marks to
 * P:dirty pushes one token in the same script; a feeder blocked on the list (BLPOP, on a connection
 * of its own) wakes at once instead of polling. A hint only: the marks stay the truth, a token
 * taken by another process or lost to a failover costs at most the fallback interval.
 */
export class DirtyWake {
  private blocking: RedisClient | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Resolves true when a token arrives within `timeoutMs`, false otherwise (or when Redis is down). */
  async wait(timeoutMs: number): Promise<boolean> {
    this.blocking ??= this.redis.duplicate();
    const seconds = Math.max(timeoutMs, 1) / 1000;
    try {
      return (await this.blocking.blpop(this.keys.dirtyWake(), seconds)) !== null;
    } catch {
      return false;
    }
  }

  close(): void {
    this.blocking?.disconnect();
    this.blocking = undefined;
  }
}

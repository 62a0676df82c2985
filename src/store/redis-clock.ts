import type { RedisClient } from './redis-connection.js';

/**
 * Times written to Redis by several processes (job start, change time, sync enqueue) are compared
 * with each other, so they follow Redis's clock: the local clock plus an offset measured with TIME.
 */
export class RedisClock {
  private offsetMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private lost = false;
  private readonly reconnected = new Set<() => void>();

  constructor(private readonly client: RedisClient) {
    // Back after a loss, the server may be another one (a failover), with another clock — and the
    // last writes the old primary acknowledged may be gone: whoever relied on them is told.
    client.on('close', () => (this.lost = true));
    client.on('ready', () => {
      if (!this.lost) return;
      this.lost = false;
      void this.sync().catch(() => undefined);
      for (const listener of this.reconnected) listener();
    });
  }

  /** Calls `listener` each time the connection is ready again after it was lost. */
  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  async sync(): Promise<void> {
    const before = Date.now();
    const [seconds, micros] = await this.client.time();
    const after = Date.now();
    const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    this.offsetMs = redisMs - Math.round((before + after) / 2);
  }

  /** Measures now and every minute after, without keeping the process alive. */
  async start(): Promise<void> {
    await this.sync().catch(() => undefined);
    this.timer = setInterval(() => void this.sync().catch(() => undefined), 60_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

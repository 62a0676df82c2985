import type { RedisClient } from './redis-connection.js';

/**
 * Times written to Redis by several processes (job start, change time, sync enqueue) are compared
 * with each other, so they follow Redis's clock: the local clock plus an offset measured with TIME.
 */
export class RedisClock {
  private offsetMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly client: RedisClient) {}

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

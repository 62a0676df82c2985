import type { Queue } from 'bullmq';
import type { RedisClient } from '../store/redis-connection.js';
import { RedisUnavailableError } from '../store/redis-errors.js';

/**
 * Holds a BullMQ Queue and replaces it when its connection set-up failed. BullMQ sets a queue up
 * once (waits for the connection, reads the server version); if Redis went away during that, the
 * queue rejects every later call with the same error, for good, even after Redis is back. A
 * producer created while Redis is down (start-up) or as it drops would be broken until a restart.
 *
 * On a fail-fast connection (no offline queue: the HTTP side), an operation while the connection is
 * not ready fails at once: a queue still setting itself up would otherwise wait for Redis to come
 * back, and the request with it.
 */
export class ResilientQueue<Q extends Queue> {
  private queue: Q;

  constructor(
    private readonly connection: RedisClient,
    private readonly create: () => Q,
  ) {
    this.queue = create();
  }

  get current(): Q {
    return this.queue;
  }

  /** Runs an operation on the queue; if its set-up had failed, once more on a fresh queue. */
  async run<R>(operation: (queue: Q) => Promise<R>): Promise<R> {
    this.failFastWhenDown();
    const queue = this.queue;
    try {
      return await operation(queue);
    } catch (error) {
      if (queue !== this.queue) return this.retry(operation);
      const broken = await queue.waitUntilReady().then(
        () => false,
        () => true,
      );
      if (!broken) throw error;
      this.queue = this.create();
      void queue.close().catch(() => undefined);
      return this.retry(operation);
    }
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  private retry<R>(operation: (queue: Q) => Promise<R>): Promise<R> {
    this.failFastWhenDown();
    return operation(this.queue);
  }

  private failFastWhenDown(): void {
    if (this.connection.options.enableOfflineQueue === false && this.connection.status !== 'ready')
      throw new RedisUnavailableError(this.connection.status);
  }
}

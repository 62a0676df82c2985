import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { ResilientQueue } from '../../src/queue/resilient-queue.js';
import { RedisUnavailableError } from '../../src/store/redis-errors.js';
import { closeRedis, createRedis, untilReady, type RedisClient } from '../../src/store/redis-connection.js';
import { testConfig } from '../support/config.js';

// Real: a private redis-server, killed while a BullMQ queue is being set up on a producer connection.
describe('ResilientQueue', () => {
  let redis: EmbeddedRedis;
  let client: RedisClient;

  beforeAll(async () => {
    redis = await startEmbeddedRedis();
    client = createRedis(testConfig({ REDIS_URL: redis.url }).redis, 'producer');
    client.on('error', () => undefined);
    await untilReady(client, 5000);
  });
  afterAll(async () => {
    await closeRedis(client);
    await redis.stop();
  });

  it('replaces a queue whose set-up failed, so producing works again once Redis is back', async () => {
    const created: Queue[] = [];
    const make = () => {
      const queue = new Queue('resilience', { connection: client, prefix: '{resilience}' });
      queue.on('error', () => undefined);
      created.push(queue);
      return queue;
    };
    redis.kill();
    // Set up while the connection dies: BullMQ keeps that failure for the queue's lifetime.
    const holder = new ResilientQueue(client, make);
    const first = created[0] as Queue;
    await expect(first.waitUntilReady()).rejects.toThrow();
    await redis.restart();
    await untilReady(client, 10_000);
    await expect(first.add('plain', {})).rejects.toThrow();

    const job = await holder.run((queue) => queue.add('through-the-holder', {}));
    expect(job.id).toBeDefined();
    expect(created).toHaveLength(2);
    expect(holder.current).toBe(created[1]);
    await holder.close();
  });

  it('refuses at once while the connection is down, instead of waiting for a queue being set up', async () => {
    redis.kill();
    await expect.poll(() => client.status).not.toBe('ready');
    // Its set-up waits for the connection to be ready again; an operation must not wait with it.
    const holder = new ResilientQueue(client, () => {
      const queue = new Queue('fail-fast', { connection: client, prefix: '{resilience}' });
      queue.on('error', () => undefined);
      return queue;
    });
    await expect(holder.run((queue) => queue.add('while-down', {}))).rejects.toBeInstanceOf(
      RedisUnavailableError,
    );
    await redis.restart();
    await untilReady(client, 10_000);
    const job = await holder.run((queue) => queue.add('after-restart', {}));
    expect(await holder.current.getJob(job.id ?? '')).toMatchObject({ name: 'after-restart' });
    await holder.close();
  });
});

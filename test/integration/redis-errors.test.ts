import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../../src/domain/errors.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { closeRedis, createRedis, untilReady, type RedisClient } from '../../src/store/redis-connection.js';
import { storeCall } from '../../src/store/redis-errors.js';
import { testConfig } from '../support/config.js';

// Real: a private redis-server made full (maxmemory with noeviction), as production runs it.
describe('a Redis that cannot take writes', () => {
  let redis: EmbeddedRedis;
  let client: RedisClient;

  beforeAll(async () => {
    redis = await startEmbeddedRedis();
    client = createRedis(testConfig({ REDIS_URL: redis.url }).redis, 'producer');
    await untilReady(client, 5000);
  });
  afterAll(async () => {
    await closeRedis(client);
    await redis.stop();
  });

  it('is store_unavailable (503, retried), not an internal error', async () => {
    await client.config('SET', 'maxmemory-policy', 'noeviction');
    await client.config('SET', 'maxmemory', '1');
    const write = storeCall(() => client.set('full', 'value'));
    await expect(write).rejects.toBeInstanceOf(BridgeError);
    await expect(write).rejects.toMatchObject({ code: 'store_unavailable' });
    // A transaction is refused as a whole (EXECABORT), its commands' refusals alongside.
    await expect(storeCall(() => client.multi().set('full', 'value').exec())).rejects.toMatchObject({
      code: 'store_unavailable',
    });

    await client.config('SET', 'maxmemory', '0');
    await expect(storeCall(() => client.set('full', 'value'))).resolves.toBe('OK');
  });

  it('is store_unavailable with Retry-After while the primary lacks the replicas it requires', async () => {
    // min-replicas-to-write: the primary itself refuses writes (NOREPLICAS) without a good replica.
    await client.config('SET', 'min-replicas-to-write', '1');
    try {
      await expect(storeCall(() => client.set('guarded', 'value'))).rejects.toMatchObject({
        code: 'store_unavailable',
        retryAfterMs: 5000,
      });
    } finally {
      await client.config('SET', 'min-replicas-to-write', '0');
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputFreshnessStore } from '../../src/store/input-freshness.store.js';
import { createKeys } from '../../src/store/keys.js';
import { closeRedis, createRedis, untilReady, type RedisClient } from '../../src/store/redis-connection.js';
import { testConfig } from '../support/config.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from '../support/redis.js';

// Real Redis. What is checked: an input's freshness keeps the last read's cost and adds up every
// read that said its cost, whichever process made it — what the status shows as `reads`.
describe("an input's freshness", () => {
  const prefix = uniquePrefix('fresh');
  let client: RedisClient;
  let store: InputFreshnessStore;

  beforeAll(async () => {
    client = createRedis(testConfig({ REDIS_URL: testRedisUrl() }).redis, 'producer');
    await untilReady(client, 5000);
    store = new InputFreshnessStore(client, createKeys(prefix));
  });
  afterAll(async () => {
    await closeRedis(client);
    await deleteKeys(prefix);
  });

  it('keeps the last read and adds up the cost of every read that said it', async () => {
    const owner = 'directory:hr';
    await store.readSucceeded(owner, {
      at: 1000,
      kind: 'delta',
      cost: { changes: 3, entriesRead: 7, durationMs: 12.4 },
    });
    await store.readSucceeded(owner, { at: 2000, kind: 'full' });
    await store.readSucceeded(owner, {
      at: 3000,
      kind: 'delta',
      cost: { changes: 0, entriesRead: 2, durationMs: 5 },
    });
    const fresh = (await store.read([owner, 'okta'])).get(owner);
    expect(fresh).toMatchObject({
      readAt: 3000,
      readKind: 'delta',
      cost: { changes: 0, entriesRead: 2, durationMs: 5 },
      totals: { reads: 2, changes: 3, entriesRead: 9, durationMs: 17 },
    });
    expect((await store.read(['okta'])).get('okta')?.totals).toEqual({
      reads: 0,
      changes: 0,
      entriesRead: 0,
      durationMs: 0,
    });
  });
});

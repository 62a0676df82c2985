import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeys, type Keys } from '../../src/store/keys.js';
import { COUNT_CHUNK, managedCountReuseMs, StatusQueries } from '../../src/store/status.queries.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from '../support/redis.js';

// Real: the test Redis and the store's key layout. What is checked: the managed count of
// GET /admin/status and of the guards is counted a chunk at a time, exactly across the chunks'
// edges, and a large one is reused by the status for its window only.
describe('the managed count', () => {
  let redis: Redis;
  let prefix: string;
  let keys: Keys;

  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => redis.disconnect());
  afterEach(() => deleteKeys(prefix));

  /** Desired users u0…u(desired-1) (the first `owned` of them the input hr's), the first `managed` of them managed, and `retired` managed ones no longer desired. */
  async function layout(counts: { desired: number; owned: number; managed: number; retired: number }) {
    prefix = uniquePrefix('status');
    keys = createKeys(prefix);
    const ids = Array.from({ length: counts.desired }, (_, n) => `u${n}`);
    for (let i = 0; i < ids.length; i += 1000) {
      const batch = ids.slice(i, i + 1000);
      await redis.zadd(keys.all('user'), ...batch.flatMap((id, n) => [i + n, id]));
      const owned = batch.filter((_, n) => i + n < counts.owned);
      if (owned.length > 0)
        await redis.zadd(keys.owned('user', 'directory:hr'), ...owned.flatMap((id) => [0, id]));
    }
    const managed = [
      ...ids.slice(0, counts.managed),
      ...Array.from({ length: counts.retired }, (_, n) => `r${n}`),
    ];
    for (let i = 0; i < managed.length; i += 1000)
      await redis.sadd(keys.managed('user'), ...managed.slice(i, i + 1000));
  }

  it('counts exactly across the chunks, of all inputs and of one', async () => {
    await layout({
      desired: 3 * COUNT_CHUNK + 1,
      owned: COUNT_CHUNK + 7,
      managed: 2 * COUNT_CHUNK + 3,
      retired: 500,
    });
    const queries = new StatusQueries(redis, keys);
    expect(await queries.managedAndDesired('user')).toBe(2 * COUNT_CHUNK + 3);
    expect(await queries.managedAndDesired('user', { owner: 'directory:hr' })).toBe(COUNT_CHUNK + 7);
    expect(await queries.managedAndDesired('user', { owner: 'okta' })).toBe(0);
    expect((await queries.counts()).users).toEqual({
      desired: 3 * COUNT_CHUNK + 1,
      managed: 2 * COUNT_CHUNK + 3,
      deprovisioned: 500,
    });
  });

  it('reuses a large count for its window, and counts a small one at every call', async () => {
    await layout({ desired: 12_000, owned: 0, managed: 10_000, retired: 500 });
    let now = 1_000_000;
    const queries = new StatusQueries(redis, keys, { now: () => now });
    expect((await queries.counts()).users).toEqual({ desired: 12_000, managed: 10_000, deprovisioned: 500 });
    await redis.srem(keys.managed('user'), 'u0', 'u1');
    await redis.zadd(keys.all('user'), 12_000, 'u12000');
    // Within the window: the desired count is current, the managed pair the last one counted.
    now += managedCountReuseMs(12_000) - 1;
    expect((await queries.counts()).users).toEqual({ desired: 12_001, managed: 10_000, deprovisioned: 500 });
    now += 1;
    expect((await queries.counts()).users).toEqual({ desired: 12_001, managed: 9_998, deprovisioned: 500 });

    // Groups stayed under 10,000 (none here): counted at each call, at the same time.
    await redis.zadd(keys.all('group'), 0, 'g0');
    await redis.sadd(keys.managed('group'), 'g0');
    expect((await queries.counts()).groups).toEqual({ desired: 1, managed: 1, deprovisioned: 0 });
    await redis.zrem(keys.all('group'), 'g0');
    expect((await queries.counts()).groups).toEqual({ desired: 0, managed: 0, deprovisioned: 1 });
  });

  it('gives a window of 100 ms per 1,000 identities counted, none under 10,000', () => {
    expect(managedCountReuseMs(9_999)).toBe(0);
    expect(managedCountReuseMs(100_000)).toBe(10_000);
    expect(managedCountReuseMs(1_000_000)).toBe(100_000);
  });
});

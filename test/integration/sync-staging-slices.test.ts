import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/ops/logger.js';
import { SyncStaging } from '../../src/store/sync-staging.store.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: a sync's staging in Redis. A batch of groups may name hundreds of thousands of members
// (flattened nested groups, a group of everyone): checking them must not pass them to Redis as the
// arguments of one command, which overflows the call stack.
describe("a sync's staging", () => {
  let store: StoreSide;
  beforeAll(async () => {
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
  });
  afterAll(async () => {
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it('checks and defers 300,000 member references in one call', async () => {
    const staging = new SyncStaging(store.redis, store.keys, 'sync-slices');
    await staging.record('users', [{ ref: { index: 0 }, id: 'u1', name: 'u1@example.com' }]);
    const ids = Array.from({ length: 300_000 }, (_, i) => (i === 123_456 ? 'u1' : `u${i + 2}`));
    const known = await staging.hasUsers(ids);
    expect(known).toHaveLength(300_000);
    expect(known.filter(Boolean)).toHaveLength(1);
    expect(known[123_456]).toBe(true);
    const checks = ids.map((member, position) => ({ group: { index: 0 }, position, member }));
    await staging.defer(checks);
    let deferred = 0;
    for await (const batch of staging.deferred(50_000)) deferred += batch.length;
    expect(deferred).toBe(300_000);
  });
});

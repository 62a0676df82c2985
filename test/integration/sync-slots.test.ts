import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/ops/logger.js';
import type { SyncRecordStore } from '../../src/store/sync-record.store.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: Redis and the sync records' scripts. What is checked: each input has a sync slot of its
// own (SPEC §6: inputs never wait for each other), and a bridge's single active sync from before
// slots existed is moved into its input's slot.
describe('sync slots', () => {
  let store: StoreSide;
  let records: SyncRecordStore;

  beforeAll(async () => {
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
    records = store.syncs.records;
  });
  afterAll(async () => {
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it('gives each input its own slot; a second sync of one input finds the first', async () => {
    const a = await records.start('sync-a-1', { dryRun: false, trigger: 'admin', owner: 'directory:a' });
    const b = await records.start('sync-b-1', { dryRun: false, trigger: 'admin', owner: 'directory:b' });
    const all = await records.start('sync-c-1', { dryRun: false, trigger: 'admin' });
    expect([a.started, b.started, all.started]).toEqual([true, true, true]);
    const again = await records.start('sync-a-2', { dryRun: false, trigger: 'admin', owner: 'directory:a' });
    expect(again).toEqual({ started: false, syncId: 'sync-a-1' });
    expect(await records.activeSyncId('directory:b')).toBe('sync-b-1');
    expect(await records.activeSyncs()).toEqual(['sync-a-1', 'sync-b-1', 'sync-c-1']);

    await records.finish('sync-a-1', 'completed', {});
    expect(await records.activeSyncId('directory:a')).toBeUndefined();
    expect(await records.activeSyncs()).toEqual(['sync-b-1', 'sync-c-1']);
    const next = await records.start('sync-a-3', { dryRun: false, trigger: 'admin', owner: 'directory:a' });
    expect(next.started).toBe(true);
    for (const id of ['sync-a-3', 'sync-b-1', 'sync-c-1']) await records.finish(id, 'failed', {});
    expect(await records.activeSyncs()).toEqual([]);
  });

  it('moves the single active sync of an earlier version into its input slot, once', async () => {
    const key = store.keys.syncActive();
    await store.redis.hset(store.keys.sync('sync-old-1'), 'state', 'running', 'owner', 'okta');
    await store.redis.set(key, 'sync-old-1');
    await records.migrateSlots('directory:directory');
    await records.migrateSlots('directory:directory');
    expect(await records.activeSyncId('okta')).toBe('sync-old-1');
    const refused = await records.start('sync-old-2', { dryRun: false, trigger: 'admin', owner: 'okta' });
    expect(refused.started).toBe(false);
    await records.finish('sync-old-1', 'completed', {});
    expect(await records.activeSyncs()).toEqual([]);
  });
});

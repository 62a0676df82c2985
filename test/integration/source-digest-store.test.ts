import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredChange } from '../../src/domain/desired-change.js';
import { silentLogger } from '../../src/ops/logger.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: the inputs' source digests in Redis (store/source-digest.store.ts) and the writes of the
// desired state that forget them (store/desired-state.store.ts).
describe("an input's source digest", () => {
  let store: StoreSide;
  const upsert = (id: string): DesiredChange => ({
    op: 'upsertUser',
    user: { id, userName: `${id}@example.com`, active: true },
  });
  beforeAll(async () => {
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
  });
  afterAll(async () => {
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it("is kept by the sync that wrote the input's identities, and forgotten by any other write of them", async () => {
    const digests = store.sync.sourceDigests;
    const owner = 'directory:digest';
    await digests.expect(owner, 'sync-1');
    await store.sync.writeDesired([upsert('ann')], owner);
    expect(await digests.keep(owner, 'sync-1', 'd1:one')).toBe(true);
    expect(await digests.get(owner)).toBe('d1:one');

    // Another input's write leaves it; a write of the input's own identities by another path forgets it.
    await store.sync.applyChanges([upsert('bob')], 'scim');
    expect(await digests.get(owner)).toBe('d1:one');
    await store.sync.applyChanges([upsert('ann-2')], owner);
    expect(await digests.get(owner)).toBeUndefined();

    // Written meanwhile by another path, a sync's read is not kept.
    await digests.expect(owner, 'sync-2');
    await store.sync.applyChanges([upsert('cid')], owner);
    expect(await digests.keep(owner, 'sync-2', 'd1:two')).toBe(false);
    expect(await digests.get(owner)).toBeUndefined();

    // Nor is a sync's once a later sync began writing.
    await digests.expect(owner, 'sync-3');
    await digests.expect(owner, 'sync-4');
    expect(await digests.keep(owner, 'sync-3', 'd1:three')).toBe(false);
    expect(await digests.keep(owner, 'sync-4', 'd1:four')).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/ops/logger.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: an input's source lookup table in Redis (store/source-lookup.store.ts).
describe("an input's source lookup table", () => {
  let store: StoreSide;
  beforeAll(async () => {
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
  });
  afterAll(async () => {
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it('is replaced whole by a full read, updated by a change read, and told from none when empty', async () => {
    const table = store.sync.sourceLookup('directory:lookup');
    expect(await table.exists()).toBe(false);
    await table.replace(
      new Map([
        ['u:ann@example.com', '1001'],
        ['u:bob@example.com', '1002'],
      ]),
    );
    expect(await table.get(['u:bob@example.com', 'u:nobody@example.com', ''])).toEqual([
      '1002',
      undefined,
      undefined,
    ]);

    await table.set([['u:ann.new@example.com', '1001']]);
    await table.delete(['u:bob@example.com']);
    expect(await table.get(['u:ann@example.com', 'u:ann.new@example.com', 'u:bob@example.com'])).toEqual([
      '1001',
      '1001',
      undefined,
    ]);

    // A read that keeps nothing still leaves a table: "read, empty" is not "never read".
    await table.replace([]);
    expect(await table.exists()).toBe(true);
    expect(await table.get(['u:ann@example.com'])).toEqual([undefined]);
  });
});

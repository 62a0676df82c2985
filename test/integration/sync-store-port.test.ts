import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { DesiredStateStore } from '../../src/store/desired-state.store.js';
import { createKeys } from '../../src/store/keys.js';
import { ReconcileStateStore } from '../../src/store/reconcile-state.store.js';
import { RedisClock } from '../../src/store/redis-clock.js';
import { closeRedis, createRedis, untilReady, type RedisClient } from '../../src/store/redis-connection.js';
import { SyncRecordStore } from '../../src/store/sync-record.store.js';
import { SyncStore } from '../../src/store/sync.store.js';
import { testConfig } from '../support/config.js';

/** Drains an async iterator (the port's walks), so that its first read is made. */
async function drain<T>(walk: AsyncIterable<T>): Promise<void> {
  for await (const _ of walk) void _;
}

// Real: a private redis-server, stopped while a sync's store is in use. What is checked: every call
// a full sync makes through its port (store/sync.store.ts, store/sync-run.store.ts) is mapped by the
// store, so an outage in any phase is recorded as store_unavailable, never as an internal error.
describe("a full sync's store port while Redis is down", () => {
  let redis: EmbeddedRedis;
  let client: RedisClient;
  let store: SyncStore;

  beforeAll(async () => {
    redis = await startEmbeddedRedis();
    client = createRedis(testConfig({ REDIS_URL: redis.url }).redis, 'producer');
    await untilReady(client, 5000);
    const keys = createKeys('{port-test}');
    const clock = new RedisClock(client);
    const desired = new DesiredStateStore(client, keys, clock, 'directory:hr');
    const state = new ReconcileStateStore(client, keys, clock);
    store = new SyncStore(client, keys, new SyncRecordStore(client, keys, clock), desired, state);
    await redis.stop();
  });
  afterAll(async () => {
    await closeRedis(client);
  });

  const run = () => store.forRun('sync-1-abc', 'directory:hr');
  const calls: Record<string, () => Promise<unknown>> = {
    'the source order': () => drain(run().order('user', 100)),
    'a chunk of identities': () => run().readChunk('user', ['u-1']),
    'the ownership check': () => run().heldElsewhere('user', [{ id: 'u-1', name: 'ada' }]),
    "group members' target ids": () => run().memberTargets(['u-1']),
    "a chunk's plan": async () => {
      const writer = run().planWriter();
      writer.gone('user', 'u-1');
      await writer.flush();
    },
    'the removal counts': () => run().removalCounts('user'),
    'the removal walk': () => drain(run().missingFromSource('user', new Set(['all', 'managed']))),
    'the planned changes': () => run().plannedChanges('user'),
    'what was staged': () => drain(run().staged('user')),
    'the ids gone': () => drain(run().gone('group')),
    'the adoptions': () => drain(run().adoptions()),
    'the parkings': () => drain(run().parkings()),
    'the listing index': () => run().listing.candidates('user', [{ externalId: 'x', name: 'ada' }]),
    'the desired state write': () => store.writeDesired([{ op: 'deleteUser', id: 'u-1' }], 'directory:hr'),
    'an adoption': () => store.adopt([{ kind: 'user', id: 'u-1', targetId: 't-1' }]),
    'the managed count': () => store.managedAndDesired('user', 'directory:hr'),
    'the owners': () => store.ownerCounts(),
    "other inputs' groups": () => drain(store.groupsOfOtherInputs('directory:hr')),
    'the record': () => store.records.get('sync-1-abc'),
  };

  for (const [name, call] of Object.entries(calls)) {
    it(`reads or writes ${name}: store_unavailable`, async () => {
      await expect(call()).rejects.toMatchObject({ code: 'store_unavailable', side: 'store' });
    });
  }
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { DesiredStateStore } from '../../src/store/desired-state.store.js';
import { createKeys } from '../../src/store/keys.js';
import { ReconcileStateStore } from '../../src/store/reconcile-state.store.js';
import { RedisClock } from '../../src/store/redis-clock.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: Redis and the store's Lua batch script. No queue, no target.
describe('desired-state store', () => {
  const config = testConfig();
  const keys = createKeys(config.redis.keyPrefix);
  let redis: RedisClient;
  let store: DesiredStateStore;

  beforeAll(async () => {
    redis = createRedis(config.redis, 'worker');
    store = new DesiredStateStore(redis, keys, new RedisClock(redis));
  });
  afterAll(async () => {
    await deleteKeys(config.redis.keyPrefix);
    await closeRedis(redis);
  });

  const user = (id: string, userName: string) => ({ id, userName, active: true });

  it('applies a batch, marks what it changed dirty, and reports it', async () => {
    const result = await store.apply([
      { op: 'upsertUser', user: user('a', 'a@example.com') },
      { op: 'upsertUser', user: user('b', 'b@example.com') },
      { op: 'upsertGroup', group: { id: 'g', displayName: 'G', members: ['a', 'b'] } },
    ]);
    expect(result.results).toEqual(['created', 'created', 'created']);
    expect(result.touched).toEqual([
      { kind: 'user', id: 'a' },
      { kind: 'user', id: 'b' },
      { kind: 'group', id: 'g' },
    ]);
    expect(await redis.zscore(keys.dirty(), 'user:a')).not.toBeNull();
    expect((await store.apply([{ op: 'upsertUser', user: user('a', 'a@example.com') }])).results).toEqual([
      'unchanged',
    ]);
  });

  it('keeps the marks of a full sync apart, where the feeder does not look', async () => {
    await store.apply([{ op: 'upsertUser', user: user('s', 's@example.com') }], { forSync: true });
    expect(await redis.zscore(keys.dirtyForSync(), 'user:s')).not.toBeNull();
    expect(await redis.zscore(keys.dirty(), 'user:s')).toBeNull();
  });

  it('raises a mark at every change, so a run clears it only if nothing changed since it looked', async () => {
    // Two changes within one millisecond: the clock stands still.
    const frozen = new (class extends RedisClock {
      override now(): number {
        return 1_000_000;
      }
    })(redis);
    const sameMs = new DesiredStateStore(redis, keys, frozen);
    const state = new ReconcileStateStore(redis, keys, frozen);
    await sameMs.apply([{ op: 'upsertUser', user: user('race', 'race@example.com') }]);
    const seen = await state.seenMarks('user', 'race');
    expect(seen).toEqual({ dirty: 1_000_000 });
    // The change a run did not read, in the same millisecond as the one it did.
    await sameMs.apply([{ op: 'upsertUser', user: { ...user('race', 'race@example.com'), active: false } }]);
    expect(await redis.zscore(keys.dirty(), 'user:race')).toBe('1000001');

    const outcome = { startedAt: 1_000_000, result: 'updated', requests: {}, history: [] };
    await state.recordOutcome('user', 'race', { ...outcome, seen });
    expect(await redis.zscore(keys.dirty(), 'user:race')).toBe('1000001');
    await state.recordOutcome('user', 'race', { ...outcome, seen: await state.seenMarks('user', 'race') });
    expect(await redis.zscore(keys.dirty(), 'user:race')).toBeNull();
  });

  it('refuses a whole batch when one change takes a userName held by another identity', async () => {
    const before = await store.getUser('b');
    const error = await store
      .apply([
        { op: 'upsertUser', user: user('b', 'B-renamed@example.com') },
        { op: 'upsertUser', user: user('c', 'A@EXAMPLE.COM') },
      ])
      .catch((e: unknown) => e);
    expect(isBridgeError(error, 'conflict')).toBe(true);
    expect((error as { scimType?: string }).scimType).toBe('uniqueness');
    expect(await store.getUser('b')).toEqual(before);
    expect(await store.getUser('c')).toBeUndefined();
  });

  it('skips the changes of events seen before and reports them as duplicates', async () => {
    const events = { source: 'test', ids: ['e-1', 'e-2'], ttlSeconds: 60 };
    const first = await store.apply(
      [
        { op: 'upsertUser', user: user('d', 'd@example.com'), eventIndex: 0 },
        { op: 'addMembers', groupId: 'g', userIds: ['d'], eventIndex: 1 },
      ],
      { events },
    );
    expect(first.duplicates).toEqual([]);
    const again = await store.apply(
      [
        { op: 'upsertUser', user: user('d', 'd-changed@example.com'), eventIndex: 0 },
        { op: 'upsertUser', user: user('e', 'e@example.com'), eventIndex: 1 },
      ],
      { events: { ...events, ids: ['e-1', 'e-3'] } },
    );
    expect(again.duplicates).toEqual(['e-1']);
    expect(again.results).toEqual(['skipped', 'created']);
    expect((await store.getUser('d'))?.userName).toBe('d@example.com');
    expect((await store.getGroup('g'))?.members).toEqual(['a', 'b', 'd']);
  });

  it('applies a change only when its event is newer than the last one applied', async () => {
    await store.apply([{ op: 'upsertUser', user: user('f', 'f-new@example.com'), eventTime: 2000 }]);
    const late = await store.apply([
      { op: 'upsertUser', user: user('f', 'f-old@example.com'), eventTime: 1000 },
    ]);
    expect(late.results).toEqual(['stale']);
    expect((await store.getUser('f'))?.userName).toBe('f-new@example.com');
    const deleted = await store.apply([{ op: 'deleteUser', id: 'f', eventTime: 3000 }]);
    expect(deleted.results).toEqual(['deleted']);
  });

  it('removes a deleted user from its groups and frees its userName', async () => {
    const result = await store.apply([{ op: 'deleteUser', id: 'a' }]);
    expect(result.touched).toEqual(
      expect.arrayContaining([
        { kind: 'user', id: 'a' },
        { kind: 'group', id: 'g' },
      ]),
    );
    expect((await store.getGroup('g'))?.members).toEqual(['b', 'd']);
    expect((await store.apply([{ op: 'upsertUser', user: user('z', 'a@example.com') }])).results).toEqual([
      'created',
    ]);
  });

  it('replaces thousands of members at once (past what one command may carry), in the member set and in each user’s groups', async () => {
    const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, n) => `m${from + n}`);
    const group = (members: string[]) => ({ id: 'big', displayName: 'Big', members });
    expect((await store.apply([{ op: 'upsertGroup', group: group(ids(0, 9000)) }])).results).toEqual([
      'created',
    ]);
    const replaced = await store.apply([{ op: 'upsertGroup', group: group(ids(4000, 13000)) }]);
    expect(replaced.results).toEqual(['updated']);
    const members = (await store.getGroup('big'))?.members ?? [];
    expect(members).toHaveLength(9000);
    expect(new Set(members)).toEqual(new Set(ids(4000, 13000)));
    const groupsOf = (id: string) => redis.zrangebylex(keys.memberOf(), `[${id}\n`, `(${id}\x0b`);
    expect(await groupsOf('m0')).toEqual([]);
    expect(await groupsOf('m3999')).toEqual([]);
    expect(await groupsOf('m4000')).toEqual(['m4000\nbig']);
    expect(await groupsOf('m12999')).toEqual(['m12999\nbig']);
    expect(await redis.zcount(keys.memberOf(), '-inf', '+inf')).toBeGreaterThanOrEqual(9000);
    expect((await store.apply([{ op: 'upsertGroup', group: group(ids(4000, 13000)) }])).results).toEqual([
      'unchanged',
    ]);
  });

  it('keeps extra attributes beside the desired state without making it dirty', async () => {
    await redis.zrem(keys.dirty(), 'user:b');
    const result = await store.apply([
      { op: 'upsertUser', user: user('b', 'b@example.com'), extra: { title: 'Engineer' } },
    ]);
    expect(result.results).toEqual(['unchanged']);
    expect(await redis.get(keys.extra('user', 'b'))).toBe('{"title":"Engineer"}');
    expect(await redis.zscore(keys.dirty(), 'user:b')).toBeNull();
  });
});

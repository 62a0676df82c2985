import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../../src/domain/desired-change.js';
import { ConflictStore } from '../../src/store/conflicts.store.js';
import { DesiredStateQueries } from '../../src/store/desired-state.queries.js';
import { DesiredStateStore } from '../../src/store/desired-state.store.js';
import { createKeys } from '../../src/store/keys.js';
import { ReconcileStateStore } from '../../src/store/reconcile-state.store.js';
import { RedisClock } from '../../src/store/redis-clock.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: Redis and the store's Lua scripts (the batch, conflict resolution, bulk adoption). No queue,
// no target. Each test uses its own ids.
describe('ownership in the desired-state store', () => {
  const config = testConfig();
  const keys = createKeys(config.redis.keyPrefix);
  let redis: RedisClient;
  let store: DesiredStateStore;
  let state: ReconcileStateStore;
  let conflicts: ConflictStore;

  beforeAll(async () => {
    redis = createRedis(config.redis, 'worker');
    const clock = new RedisClock(redis);
    store = new DesiredStateStore(redis, keys, clock);
    state = new ReconcileStateStore(redis, keys, clock);
    conflicts = new ConflictStore(redis, keys, clock);
  });
  afterAll(async () => {
    await deleteKeys(config.redis.keyPrefix);
    await closeRedis(redis);
  });

  const user = (id: string, userName: string, externalId?: string) => ({
    id,
    userName,
    active: true,
    ...(externalId ? { externalId } : {}),
  });
  const upsert = (owner: Owner, u: ReturnType<typeof user>, mode: 'unique' | 'force' = 'unique') =>
    store.apply([{ op: 'upsertUser', user: u, mode }], { owner });
  const owner = (id: string) => redis.hget(keys.identity('user', id), 'o');
  const marked = async (id: string) => (await redis.zscore(keys.dirty(), `user:${id}`)) !== null;

  it('records the owner, and refuses an id another input owns with a same-id conflict', async () => {
    expect((await upsert('events', user('a1', 'a1@example.com'))).results).toEqual(['created']);
    expect(await owner('a1')).toBe('events');
    expect(await redis.zscore(keys.owned('user', 'events'), 'a1')).not.toBeNull();
    const claim = await store.apply(
      [
        { op: 'upsertUser', user: user('a1', 'other@example.com') },
        { op: 'upsertUser', user: user('a2', 'a2@example.com') },
      ],
      { owner: 'directory:hr' },
    );
    expect(claim.results).toEqual(['owned-elsewhere', 'created']);
    expect((await store.getUser('a1'))?.userName).toBe('a1@example.com');
    const [conflict] = (await conflicts.page('open', 0, 10)).items.filter((c) => c.claimant.id === 'a1');
    expect(conflict).toMatchObject({
      kind: 'same-id',
      claimant: { owner: 'directory:hr', id: 'a1', name: 'other@example.com' },
      holder: { owner: 'events', id: 'a1', name: 'a1@example.com' },
      desired: { id: 'a1', userName: 'other@example.com' },
    });
    // Deletes and membership changes of another input's identity change nothing.
    await store.apply([{ op: 'upsertGroup', group: { id: 'ga', displayName: 'GA', members: ['a1'] } }], {
      owner: 'events',
    });
    const refused = await store.apply(
      [
        { op: 'deleteUser', id: 'a1', signal: { source: 'snapshot', detail: 'missing' } },
        { op: 'removeMembers', groupId: 'ga', userIds: ['a1'] },
      ],
      { owner: 'directory:hr' },
    );
    expect(refused.results).toEqual(['owned-elsewhere', 'owned-elsewhere']);
    expect((await store.getGroup('ga'))?.members).toEqual(['a1']);
    const [entry] = await state.history('user', 'a1');
    expect(entry).toMatchObject({ type: 'signal', source: 'snapshot', refused: 'owned-elsewhere' });
    // Deleted by its owner, the id is free: another input creates it anew as its own.
    await store.apply([{ op: 'deleteUser', id: 'a1' }], { owner: 'events' });
    expect((await upsert('directory:hr', user('a1', 'other@example.com'))).results).toEqual(['created']);
    expect(await owner('a1')).toBe('directory:hr');
    expect(await redis.zscore(keys.owned('user', 'events'), 'a1')).toBeNull();
  });

  it('parks a newcomer whose userName or externalId another input holds, unreconciled', async () => {
    await upsert('scim', user('b1', 'b@example.com', 'ext-b'));
    const parked = await upsert('events', user('b2', 'B@example.com'), 'force');
    expect(parked.results).toEqual(['parked']);
    expect(parked.touched).toEqual([]);
    expect(await marked('b2')).toBe(false);
    const byExternalId = await upsert('okta', user('b3', 'b3@example.com', 'ext-b'));
    expect(byExternalId.results).toEqual(['parked']);
    const open = (await conflicts.page('open', 0, 50)).items;
    const claims = open.filter((c) => c.holder?.id === 'b1');
    expect(claims.map((c) => [c.claimant.id, c.account.by])).toEqual(
      expect.arrayContaining([
        ['b2', 'userName'],
        ['b3', 'externalId'],
      ]),
    );
    // The holder keeps the index; each input still finds its own parked identity.
    expect(await new DesiredStateQueries(redis, keys).userIds('userName', 'b@example.com')).toEqual(['b1']);
    const events = new DesiredStateQueries(redis, keys, { owner: 'events' });
    const found = await events.users(await events.userIds('userName', 'b@example.com'));
    expect(found.map((u) => u?.id)).toEqual([undefined, 'b2']);
    // Written again by its input, it stays parked: the same conflict, seen again.
    expect(
      (await upsert('events', { ...user('b2', 'B@example.com'), active: false }, 'force')).results,
    ).toEqual(['parked']);
    expect((await conflicts.page('open', 0, 50)).items.filter((c) => c.claimant.id === 'b2')).toHaveLength(1);
    expect((await state.userState('b2')).parked).toBe(claims.find((c) => c.claimant.id === 'b2')?.id);
    // Its own input's uniqueness still holds against it (409), another name is stored as usual.
    await expect(upsert('events', user('b4', 'b@example.com'))).rejects.toMatchObject({ code: 'conflict' });
    expect((await upsert('scim', user('b5', 'b5@example.com'))).results).toEqual(['created']);
    await expect(upsert('scim', user('b6', 'b5@example.com'))).rejects.toMatchObject({ code: 'conflict' });
    // Deleted by its input, the claim is withdrawn.
    await store.apply([{ op: 'deleteUser', id: 'b3' }], { owner: 'okta' });
    expect((await conflicts.page('all', 0, 50)).items.find((c) => c.claimant.id === 'b3')?.status).toBe(
      'withdrawn',
    );
  });

  it('adopts no account for a parked identity, nor one another identity manages', async () => {
    await upsert('scim', user('c1', 'c@example.com'));
    await upsert('events', user('c2', 'c@example.com'), 'force');
    await upsert('events', user('c3', 'c3@example.com'));
    await state.setTarget('user', 'c1', 'T-c1');
    const adopted = await state.adoptBulk([
      { kind: 'user', id: 'c2', targetId: 'T-c2' },
      { kind: 'user', id: 'c3', targetId: 'T-c1' },
    ]);
    expect(adopted).toBe(0);
    expect((await state.userState('c2')).targetId).toBeUndefined();
    expect(await state.sourceIdForTarget('user', 'T-c1')).toBe('c1');
  });

  it('adopts in the order asked within one batch: an account once, an identity once', async () => {
    for (const id of ['e1', 'e2', 'e3']) await upsert('scim', user(id, `${id}@example.com`));
    await state.markCreating('user', 'e1', 'e1-external');
    const adopted = await state.adoptBulk([
      { kind: 'user', id: 'e1', targetId: 'T-e1' },
      { kind: 'user', id: 'e2', targetId: 'T-e1' },
      { kind: 'user', id: 'e3', targetId: 'T-e3' },
      { kind: 'user', id: 'e3', targetId: 'T-e3b' },
    ]);
    expect(adopted).toBe(2);
    expect(await state.sourceIdForTarget('user', 'T-e1')).toBe('e1');
    expect((await state.userState('e1')).pendingCreate).toBeUndefined();
    expect(await redis.sismember(keys.creating('user'), 'e1')).toBe(0);
    expect((await state.userState('e2')).targetId).toBeUndefined();
    expect((await state.userState('e3')).targetId).toBe('T-e3');
    expect(await state.sourceIdForTarget('user', 'T-e3b')).toBeUndefined();
    expect(await redis.smismember(keys.managed('user'), 'e1', 'e2', 'e3')).toEqual([1, 0, 1]);
  });

  it('refuses a batch that names an unknown owner before it writes', async () => {
    await expect(
      store.apply([{ op: 'upsertUser', user: user('d1', 'd@example.com') }], { owner: 'ldap' as Owner }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await store.getUser('d1')).toBeUndefined();
  });
});

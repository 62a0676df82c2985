import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityKind } from '../../src/domain/identity.js';
import { createRequestGate } from '../../src/platform/request-gate.js';
import { parseStoredUser } from '../../src/domain/canonical.js';
import { memberTargets, notInSource, readChunk } from '../../src/store/desired-state.bulk.js';
import { SyncListing } from '../../src/store/sync-listing.store.js';
import { SyncStaging } from '../../src/store/sync-staging.store.js';
import { DesiredStateStore } from '../../src/store/desired-state.store.js';
import { familyKey, type KeyFamily, type Keys } from '../../src/store/keys.js';
import { ReconcileStateStore } from '../../src/store/reconcile-state.store.js';
import { RedisClock } from '../../src/store/redis-clock.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { RequestGateStore } from '../../src/store/request-gate.store.js';
import { SyncRecordStore } from '../../src/store/sync-record.store.js';
import { testConfig } from '../support/config.js';
import { deleteKeys, uniquePrefix } from '../support/redis.js';

/**
 * A key layout unlike the real one (keys.ts), for the same Keys contract. A script that built a key
 * itself, from a prefix and a layout fragment, would write a key this layout does not have.
 */
function alternateKeys(tag: string): Keys {
  const kindPart = (kind: IdentityKind) => (kind === 'user' ? 'people' : 'teams');
  const families = {
    members: { stem: `${tag}/teams/members/`, suffix: '' },
    sync: { stem: `${tag}/syncs/`, suffix: '/record' },
    syncPending: { stem: `${tag}/syncs/`, suffix: '/waiting' },
    conflict: { stem: `${tag}/conflicts/`, suffix: '/record' },
  };
  const perKind = (part: string) => (kind: IdentityKind) => ({
    stem: `${tag}/${kindPart(kind)}/${part}/`,
    suffix: '/x',
  });
  const identity = perKind('state');
  const doc = perKind('desired');
  const log = perKind('log');
  const owned = perKind('owned-by');
  return {
    prefix: tag,
    identity: (kind, id) => familyKey(identity(kind), id),
    doc: (kind, id) => familyKey(doc(kind), id),
    extra: (kind, id) => `${tag}/${kindPart(kind)}/extra/${id}`,
    history: (kind, id) => familyKey(log(kind), id),
    members: (groupId) => familyKey(families.members, groupId),
    membersFamily: () => families.members,
    memberOf: () => `${tag}/memberships`,
    creating: (kind) => `${tag}/${kindPart(kind)}/creating`,
    all: (kind) => `${tag}/${kindPart(kind)}/everyone`,
    sequence: (kind) => `${tag}/${kindPart(kind)}/counter`,
    nameIndex: (kind) => `${tag}/${kindPart(kind)}/by-name`,
    externalIdIndex: (kind) => `${tag}/${kindPart(kind)}/by-external-id`,
    emailIndex: () => `${tag}/people/by-email`,
    managed: (kind) => `${tag}/${kindPart(kind)}/managed`,
    targetIdIndex: (kind) => `${tag}/${kindPart(kind)}/by-target-id`,
    parkedNameIndex: (kind) => `${tag}/${kindPart(kind)}/parked-by-name`,
    parkedExternalIdIndex: (kind) => `${tag}/${kindPart(kind)}/parked-by-external-id`,
    owned: (kind, owner) => familyKey(owned(kind), owner),
    ownedFamily: owned,
    identityFamily: identity,
    docFamily: doc,
    historyFamily: log,
    owners: () => `${tag}/owners`,
    conflict: (conflictId) => familyKey(families.conflict, conflictId),
    conflictFamily: () => families.conflict,
    conflictsOpen: () => `${tag}/conflicts-open`,
    conflictsIgnored: () => `${tag}/conflicts-ignored`,
    conflictsAll: () => `${tag}/conflicts-all`,
    conflictKinds: () => `${tag}/conflict-kinds`,
    ownersMigration: () => `${tag}/migrated-owners`,
    dirty: () => `${tag}/outbox`,
    dirtyForSync: () => `${tag}/outbox-of-sync`,
    dirtyWake: () => `${tag}/outbox-wake`,
    failures: () => `${tag}/failed`,
    platformGate: () => `${tag}/gate`,
    platformHealth: () => `${tag}/health`,
    sync: (syncId) => familyKey(families.sync, syncId),
    syncPending: (syncId) => familyKey(families.syncPending, syncId),
    syncHeld: (syncId) => `${tag}/syncs/${syncId}/held`,
    syncWork: (syncId, part) => `${tag}/syncs/${syncId}/work/${part}`,
    syncFamily: () => families.sync,
    syncPendingFamily: () => families.syncPending,
    syncActive: () => `${tag}/sync-active`,
    syncRuns: () => `${tag}/sync-runs`,
    seenEvent: (source, eventId) => `${tag}/seen/${source}/${eventId}`,
    inputWatermark: (owner) => `${tag}/inputs/watermark/${owner}`,
    sourceDigests: () => `${tag}/inputs/digests`,
    inputFreshness: (owner) => `${tag}/inputs/freshness/${owner}`,
    inputRemovals: (owner) => `${tag}/inputs/removals/${owner}`,
    inputGraph: (owner, part, next) => `${tag}/inputs/graph/${part}/${owner}${next === true ? '/next' : ''}`,
    inputLookup: (owner, next) => `${tag}/inputs/lookup/${owner}${next === true ? '/next' : ''}`,
    adminSession: (digest) => `${tag}/sessions/${digest}`,
    queuePrefix: () => `${tag}/q`,
  };
}

/** The keys handed out, and the families: what a script may touch. */
function recording(keys: Keys): { keys: Keys; handedOut: (key: string) => boolean } {
  const built = new Set<string>();
  const families: KeyFamily[] = [];
  const wrapped = Object.fromEntries(
    Object.entries(keys).map(([name, value]) => {
      if (typeof value !== 'function') return [name, value];
      return [
        name,
        (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown)(...args);
          if (typeof result === 'string') built.add(result);
          else families.push(result as KeyFamily);
          return result;
        },
      ];
    }),
  ) as unknown as Keys;
  const inFamily = (key: string, { stem, suffix }: KeyFamily) =>
    key.startsWith(stem) &&
    key.endsWith(suffix) &&
    key.length > stem.length + suffix.length &&
    !key.slice(stem.length, key.length - suffix.length).includes('/');
  return {
    keys: wrapped,
    handedOut: (key) => built.has(key) || families.some((family) => inFamily(key, family)),
  };
}

// Real: Redis, every Lua script of the stores and of the target gate, run through the stores under
// an alternate key layout. No queue, no target.
describe('the Lua scripts', () => {
  const config = testConfig();
  const tag = uniquePrefix('layout');
  const { keys, handedOut } = recording(alternateKeys(tag));
  let redis: RedisClient;
  let desired: DesiredStateStore;
  let state: ReconcileStateStore;
  let syncs: SyncRecordStore;

  beforeAll(() => {
    redis = createRedis(config.redis, 'worker');
    const clock = new RedisClock(redis);
    desired = new DesiredStateStore(redis, keys, clock);
    state = new ReconcileStateStore(redis, keys, clock);
    syncs = new SyncRecordStore(redis, keys, clock);
  });
  afterAll(async () => {
    await deleteKeys(tag);
    await closeRedis(redis);
  });

  const user = (id: string) => ({
    id,
    userName: `${id}@example.com`,
    emails: [{ value: `${id}.alias@example.com` }],
    active: true,
  });

  /** A sync's staging, listing index and plan reads, under the alternate layout. */
  async function stagedSync(syncId: string) {
    const staging = new SyncStaging(redis, keys, syncId);
    expect(await staging.record('users', [{ ref: { index: 0 }, id: 'a', name: 'a@example.com' }])).toEqual([
      {},
    ]);
    expect(await staging.stage('user', [user('a'), { ...user('b'), active: false }])).toBe(1);
    await staging.defer([{ group: { index: 0 }, position: 0, member: 'z' }]);
    await staging.remember('userdn', [['dn-a', 'a']]);
    expect(await staging.recall('userdn', ['dn-a'])).toEqual(['a']);
    await staging.expire(0);
    const listing = new SyncListing(redis, keys, syncId);
    const listed = { id: 'T-x', userName: 'a@example.com', externalId: 'a', active: true };
    expect(await listing.indexPage('user', [listed])).toEqual({ added: 1, addedManaged: 0 });
    const { lists } = await listing.candidates('user', [{ externalId: 'a', name: 'a@example.com' }]);
    expect(lists[0]?.[1]?.resource).toMatchObject({ id: 'T-x' });
    expect(await listing.claim('user', ['T-x'])).toBe(1);
    const recorded = await listing.candidates('user', [{ targetId: 'T-x', externalId: 'a', name: 'a' }]);
    expect(recorded.lists[0]?.[0]).toMatchObject({ claimed: true });
    const source = { key: staging.key('src:u:ids'), mode: 'h' as const };
    expect(
      await memberTargets(
        redis,
        keys,
        { users: source },
        { matched: staging.key('matched'), clean: listing.cleanClaims() },
        ['a', 'nobody'],
      ),
    ).toEqual(['', undefined]);
    const removals = staging.key('removals');
    expect(await notInSource(redis, keys, 'user', source, { phase: 'all', ids: ['a'], removals })).toEqual(
      [],
    );
  }

  it('work on the keys handed in, whatever their layout', async () => {
    const events = { source: 'test', ids: ['e-1'], ttlSeconds: 60 };
    const first = await desired.apply(
      [
        { op: 'upsertUser', user: user('a'), extra: { title: 'Dr' }, eventIndex: 0 },
        { op: 'upsertUser', user: user('b') },
        { op: 'upsertGroup', group: { id: 'g', displayName: 'G', externalId: 'x-g', members: ['a', 'b'] } },
        { op: 'upsertGroup', group: { id: 'h', displayName: 'H', members: ['a'] } },
        { op: 'addMembers', groupId: 'h', userIds: ['c'], signal: { source: 'admin' } },
        { op: 'removeMembers', groupId: 'h', userIds: ['c'] },
      ],
      { events },
    );
    expect(first.results).toEqual(['created', 'created', 'created', 'created', 'changed', 'changed']);
    expect(
      (await desired.apply([{ op: 'deleteUser', id: 'b', eventIndex: 0 }], { events })).duplicates,
    ).toEqual(['e-1']);

    expect((await syncs.start('s-1', { dryRun: false, trigger: 'admin', stagedUsers: 1 })).started).toBe(
      true,
    );
    await stagedSync('s-1');
    await syncs.addPending('s-1', [{ kind: 'user', id: 'a' }]);
    await desired.apply([{ op: 'upsertUser', user: { ...user('a'), active: false } }], { forSync: true });
    await state.markCreating('user', 'a', 'ext-a');
    await state.setTarget('user', 'a', 'T-a');
    expect(
      await state.adoptBulk([
        { kind: 'user', id: 'b', targetId: 'T-b' },
        { kind: 'group', id: 'g', targetId: 'T-g' },
      ]),
    ).toBe(2);
    await state.recordOutcome('user', 'a', {
      startedAt: Date.now() + 60_000,
      seen: await state.seenMarks('user', 'a'),
      result: 'updated',
      requests: { PATCH: 1 },
      history: [{ at: 1, type: 'decision' }],
    });
    // The run was reported to the active sync, whose keys the script found through their families.
    expect(await syncs.get('s-1')).toMatchObject({ outcomes: { 'user:updated': 1 }, requests: { PATCH: 1 } });
    expect(await syncs.pendingCount('s-1')).toBe(0);
    expect(await syncs.get('s-1')).toMatchObject({ source: 'snapshot', sourceUsers: 1, staged: true });
    expect(await syncs.finishIf('s-1', ['running'], 'completed', {})).toBe(false);
    await syncs.finish('s-1', 'completed', { summary: {} });
    expect(await syncs.activeSyncId()).toBeUndefined();

    const docs = keys.syncWork('s-1', 'src:u:docs');
    const [a] = await readChunk(redis, keys, 'user', docs, ['a']);
    expect(a).toMatchObject({ known: { targetId: 'T-a', managed: true }, staged: false });
    expect(parseStoredUser('a', a?.json ?? '')).toMatchObject({ active: false });
    const [g] = await readChunk(redis, keys, 'group', keys.syncWork('s-1', 'src:g:docs'), ['g']);
    expect(g).toMatchObject({ known: { targetId: 'T-g' }, members: ['a', 'b'] });

    // A deleted user leaves the groups the script finds in the membership index.
    await desired.apply([{ op: 'deleteUser', id: 'a' }]);
    expect((await desired.getGroup('g'))?.members).toEqual(['b']);
    expect((await desired.getGroup('h'))?.members).toEqual([]);
    await desired.apply([{ op: 'deleteGroup', id: 'g' }]);
    await state.forgetTarget('user', 'a', true);
    expect(await state.userState('a')).toMatchObject({ desired: undefined, targetId: undefined });

    const gate = createRequestGate(new RequestGateStore(redis, keys), 1000);
    await gate.acquire();
    await gate.pause(5);
    await gate.acquire();

    const written = await scan(redis, `${tag}*`);
    expect(written.length).toBeGreaterThan(20);
    expect(written.filter((key) => !handedOut(key))).toEqual([]);
  });
});

async function scan(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

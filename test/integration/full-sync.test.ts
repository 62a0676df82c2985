import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, TARGET_TOKEN, type EngineFixture } from '../support/engine.js';

// Real: the bridge's HTTP admin API, Redis, BullMQ (sync and reconcile workers), the reference
// target over HTTP (page cap 7, so listings take several pages).
const ADMIN = 'admin-token-for-sync-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };

const user = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `u${n}`,
  userName: `user${n}@example.com`,
  name: { givenName: `Given${n}`, familyName: `Family${n}` },
  emails: [{ value: `user${n}@example.com`, primary: true }],
  active: true,
  ...extra,
});
const users = (count: number) => Array.from({ length: count }, (_, i) => user(i));
const snapshotOf = (count: number, groups = 2) => ({
  users: users(count),
  groups: Array.from({ length: groups }, (_, g) => ({
    id: `g${g}`,
    displayName: `Group ${g}`,
    members: users(count)
      .filter((_, i) => i % groups === g)
      .map((u) => u.id),
  })),
});

describe('full reconciliation', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  async function setUp(env: Record<string, string> = {}) {
    target = await startTarget({ pageCap: 7 });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN, ...env });
  }

  const http = () => request(engine.bridge.http.server);
  const pendingMarks = async () => {
    const { redis, keys } = engine.bridge.store;
    return (await redis.zcard(keys.dirty())) + (await redis.zcard(keys.dirtyForSync()));
  };

  async function sync(body: Record<string, unknown>) {
    const res = await http().post('/admin/sync').set(auth).send(body).expect(202);
    return res.body.jobId as string;
  }

  async function settled(jobId: string, states = ['completed', 'failed', 'awaiting-approval']) {
    let record: Record<string, unknown> = {};
    await expect
      .poll(
        async () => {
          record = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as Record<
            string,
            unknown
          >;
          return states.includes(record.state as string);
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBe(true);
    return record as {
      state: string;
      plan: Record<string, unknown>;
      summary: Record<string, number & Record<string, number>>;
      progress: unknown;
      error?: { code: string };
    };
  }

  it('provisions a pushed snapshot, reports plan, progress and summary, then finds nothing to do', async () => {
    await setUp();
    const first = await settled(await sync({ snapshot: snapshotOf(20) }));
    expect(first.state).toBe('completed');
    expect(first.plan).toMatchObject({ create: 22, update: 0, deprovision: 0, unchanged: 0 });
    expect(first.summary).toMatchObject({ created: 22, failed: 0 });
    expect(first.progress).toMatchObject({ phase: 'done' });
    expect(target.users()).toHaveLength(20);
    expect(target.findGroupByDisplayName('Group 1')?.members).toHaveLength(10);

    target.resetStats();
    const second = await settled(await sync({ snapshot: snapshotOf(20) }));
    expect(second.plan).toMatchObject({ create: 0, update: 0, deprovision: 0, unchanged: 22 });
    expect(second.summary).toMatchObject({ created: 0, updated: 0, unchanged: 22 });
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('sends only list pages and the writes the drift needs', async () => {
    await setUp();
    await settled(await sync({ snapshot: snapshotOf(40) }));
    const drifted = target.users().slice(0, 3);
    for (const u of drifted) target.updateUser(u.id, { name: { givenName: 'Drifted', familyName: 'Away' } });
    target.resetStats();
    const record = await settled(await sync({}));
    expect(record.plan).toMatchObject({ update: 3, create: 0 });
    const stats = target.stats();
    const listPages = Math.ceil(40 / 7) + Math.ceil(2 / 7);
    expect(stats.byRoute['GET /Users']).toBe(listPages - 1);
    expect(stats.byRoute['GET /Groups']).toBe(1);
    expect(stats.byRoute['PATCH /Users/:id']).toBe(3);
    expect(stats.byRoute['GET /Users/:id'] ?? 0).toBe(0);
    expect(stats.total).toBeLessThanOrEqual(listPages + 3 + 1);
    for (const u of drifted) expect(target.getUser(u.id)?.name?.givenName).not.toBe('Drifted');
    // Nothing is left owing a reconcile run (the dirty sweep would otherwise read each one back).
    expect(await pendingMarks()).toBe(0);
  });

  it('adopts a directory the platform already holds, with no write and nothing left to reconcile', async () => {
    await setUp();
    for (const u of users(12)) {
      const { id, ...rest } = u;
      target.insertUser({ ...rest, externalId: id });
    }
    const record = await settled(await sync({ snapshot: { users: users(12), groups: [] } }));
    expect(record.plan).toMatchObject({ create: 0, update: 0, unchanged: 12 });
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await engine.bridge.store.state.userState('u3')).managed).toBe(true);
    expect(await pendingMarks()).toBe(0);
  });

  it('dry run: returns the plan, sends no write, changes no desired state', async () => {
    await setUp();
    await settled(await sync({ snapshot: snapshotOf(10) }));
    target.resetStats();
    const changed = {
      ...snapshotOf(8),
      users: [...users(8).map((u, i) => (i === 0 ? { ...u, active: false } : u)), user(99)],
    };
    const record = await settled(await sync({ dryRun: true, snapshot: changed }));
    expect(record.state).toBe('completed');
    expect(record.plan).toMatchObject({ users: { create: 1, update: 1, deprovision: 2 } });
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await engine.bridge.store.desired.getUser('u99')).toBeUndefined();
    expect(await engine.bridge.store.desired.getUser('u9')).toBeDefined();
  });

  it('holds the whole run over the limit: nothing is applied until approved, then all of it', async () => {
    await setUp({ DEPROVISION_LIMIT: '2', SOURCE_SHRINK_LIMIT: '100%' });
    await settled(await sync({ snapshot: snapshotOf(10) }));
    const next = { users: [...users(5), user(50)], groups: [] };
    target.resetStats();
    const held = await settled(await sync({ snapshot: next }));
    expect(held.state).toBe('awaiting-approval');
    expect(held.plan).toMatchObject({
      held: true,
      holdReasons: ['deprovision-limit'],
      deprovisionLimit: 2,
      users: { deprovision: 5, create: 1 },
      removals: {
        users: { total: 5, sample: expect.arrayContaining([{ id: 'u9', userName: 'user9@example.com' }]) },
        groups: { total: 2, sample: expect.arrayContaining([{ id: 'g0', displayName: 'Group 0' }]) },
      },
    });
    // Held: not even the creation went ahead, and the desired state is as it was.
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(target.findUserByUserName('user50@example.com')).toBeUndefined();
    expect(target.users().filter((u) => u.active)).toHaveLength(10);
    expect(await engine.bridge.store.desired.getUser('u9')).toBeDefined();
    expect(await engine.bridge.store.desired.getUser('u50')).toBeUndefined();
    const heldId = (held as unknown as { jobId: string }).jobId;
    const identity = async (id: string) =>
      (await http().get(`/admin/identities/users/${id}`).set(auth).expect(200)).body;
    expect(await identity('u9')).toMatchObject({ status: 'awaiting-approval', heldBy: heldId });
    expect(await identity('u0')).toMatchObject({ heldBy: null });

    const other = await http().post('/admin/sync').set(auth).send({}).expect(202);
    expect(other.body.jobId).toBe(heldId);
    await http().post('/admin/sync').set(auth).send({ snapshot: next }).expect(409);

    await http().post(`/admin/sync/${heldId}/approve`).set(auth).expect(202);
    const done = await settled(heldId, ['completed', 'failed']);
    expect(done.state).toBe('completed');
    expect(done.plan).toMatchObject({ approved: true, held: false });
    expect(await identity('u9')).toMatchObject({ heldBy: null, status: 'deprovisioned' });
    // 5 users deactivated and the 2 groups the snapshot no longer has deleted.
    expect(done.summary).toMatchObject({ deprovisioned: 7, created: 1 });
    expect(done.summary.outcomes).toMatchObject({ 'user:deprovisioned': 5, 'group:deleted': 2 });
    expect(
      target
        .users()
        .filter((u) => u.active)
        .map((u) => u.userName)
        .sort(),
    ).toEqual([...users(5).map((u) => u.userName), 'user50@example.com'].sort());
    expect(target.groups()).toHaveLength(0);
  });

  it('a cancelled hold applies nothing: users, groups, memberships and desired state stay', async () => {
    await setUp({ DEPROVISION_LIMIT: '10%' });
    await settled(await sync({ snapshot: snapshotOf(10) }));
    const members = () => target.groups().map((g) => [g.displayName, g.members?.length ?? 0]);
    const before = members();
    const held = (await settled(await sync({ snapshot: snapshotOf(3) }))) as unknown as {
      jobId: string;
      state: string;
      plan: { removals: { memberships: { total: number; groups: number } } };
    };
    expect(held.state).toBe('awaiting-approval');
    // 7 members leave the two groups: shown, and held with the rest.
    expect(held.plan.removals.memberships).toMatchObject({ total: 7, groups: 2 });
    expect(members()).toEqual(before);
    const cancelled = await http().post(`/admin/sync/${held.jobId}/cancel`).set(auth).expect(202);
    expect(cancelled.body).toMatchObject({ state: 'failed', error: { code: 'cancelled' } });
    expect(target.users().every((u) => u.active)).toBe(true);
    expect(members()).toEqual(before);
    expect(await engine.bridge.store.desired.getUser('u9')).toBeDefined();
    expect((await engine.bridge.store.desired.getGroup('g0'))?.members).toHaveLength(5);
    const { redis, keys } = engine.bridge.store;
    const work = ['src:u:ids', 'src:u:order', 'src:u:docs', 'removals'] as const;
    expect(
      await redis.exists(keys.syncHeld(held.jobId), ...work.map((p) => keys.syncWork(held.jobId, p))),
    ).toBe(0);
    const next = await http().post('/admin/sync').set(auth).send({ dryRun: true }).expect(202);
    expect(next.body.jobId).not.toBe(held.jobId);
  });

  it('never deprovisions target users the bridge does not manage', async () => {
    // The guards are released, so that an empty directory is applied: only managed users go.
    await setUp({ DEPROVISION_LIMIT: '100%', SOURCE_SHRINK_LIMIT: '100%' });
    const outsider = target.insertUser({
      userName: 'outsider@example.com',
      externalId: 'elsewhere',
      active: true,
    });
    await settled(await sync({ snapshot: snapshotOf(4, 1) }));
    const record = await settled(await sync({ snapshot: { users: [], groups: [] }, allowEmpty: true }));
    expect(record.state).toBe('completed');
    expect(record.plan).toMatchObject({ unmanagedUsers: 1 });
    expect(target.getUser(outsider.id)?.active).toBe(true);
    expect(
      target
        .users()
        .filter((u) => u.externalId !== 'elsewhere')
        .every((u) => !u.active),
    ).toBe(true);
  });

  it('refuses an invalid snapshot with 400 listing the problems, and changes nothing', async () => {
    await setUp();
    const bad = {
      users: [user(1), { ...user(2), userName: 'USER1@example.com' }, { id: 'u3' }],
      groups: [{ id: 'g', displayName: 'G', members: ['nobody'] }],
    };
    const res = await http().post('/admin/sync').set(auth).send({ snapshot: bad }).expect(400);
    expect(res.body.error.code).toBe('invalid_input');
    expect(res.body.error.problems.length).toBeGreaterThanOrEqual(3);
    expect(await engine.bridge.store.syncs.records.activeSyncId()).toBeUndefined();
    expect(target.stats().total).toBe(0);
  });

  it('refuses admin requests without the token', async () => {
    await setUp();
    await http().post('/admin/sync').send({}).expect(401);
    await http().get('/admin/sync').set({ Authorization: 'Bearer wrong' }).expect(401);
  });

  it('shows a sync refused by the platform in the target health, and its recovery', async () => {
    await setUp();
    const health = async () =>
      (await http().get('/admin/status').set(auth).expect(200)).body.target.state as string;
    target.setToken('a-token-the-bridge-does-not-have-01');
    const refused = await settled(await sync({ snapshot: snapshotOf(2) }));
    expect(refused.state).toBe('failed');
    expect(refused.error?.code).toBe('target_unauthorized');
    expect(await health()).toBe('auth-failed');

    target.setToken(TARGET_TOKEN);
    expect((await settled(await sync({ snapshot: snapshotOf(2) }))).state).toBe('completed');
    expect(await health()).toBe('reachable');
  });
});

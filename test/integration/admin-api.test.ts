import { afterEach, describe, expect, it } from 'vitest';
import {
  auth,
  BAD_USER,
  failureCount,
  fixBadUserQuietly,
  settledSync,
  snapshotOf,
  startAdminFixture,
  startSync,
  twoPrimaryEmails,
  type AdminFixture,
} from './admin-fixture.js';

// Real: the bridge's admin API over HTTP, Redis, BullMQ workers, the reference target over HTTP
// (which answers 400 to a user without userName: a permanent failure).
describe('admin API: status, identity traces, failures', () => {
  let fixture: AdminFixture | undefined;

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('reports status before and after a full sync', async () => {
    const f = (fixture = await startAdminFixture());
    const before = (await f.http().get('/admin/status').set(auth).expect(200)).body;
    expect(before).toMatchObject({
      status: 'ok',
      target: { state: 'reachable', since: null, pausedForMs: 0 },
      identities: {
        users: { desired: 0, managed: 0, deprovisioned: 0 },
        groups: { desired: 0, managed: 0, deprovisioned: 0 },
      },
      failures: 0,
      activeSync: null,
      lastSync: null,
      lastFullSync: null,
    });
    expect(before.queues.reconcile).toMatchObject({ waiting: 0, active: 0, failed: 0 });
    expect(Object.keys(before.queues).sort()).toEqual(['okta-events', 'reconcile', 'sync']);

    const jobId = await startSync(f, { snapshot: snapshotOf(6) });
    await settledSync(f, jobId);
    await startSync(f, { dryRun: true }).then((id) => settledSync(f, id));
    const after = (await f.http().get('/admin/status').set(auth).expect(200)).body;
    expect(after.identities).toEqual({
      users: { desired: 6, managed: 6, deprovisioned: 0 },
      groups: { desired: 2, managed: 2, deprovisioned: 0 },
    });
    expect(after.lastFullSync).toMatchObject({ jobId, state: 'completed', dryRun: false });
    expect(after.lastFullSync.summary).toMatchObject({ created: 8, failed: 0 });
    expect(after.lastSync).toMatchObject({ state: 'completed', dryRun: true });
    expect(after.lastSync.jobId).not.toBe(jobId);
    expect(after.queues.sync.completed).toBeGreaterThanOrEqual(2);

    // A deactivated user is counted as deprovisioned, not as a managed one, as its own view says.
    await settledSync(f, await startSync(f, { snapshot: snapshotOf(5) }));
    await f.engine.drain();
    const later = (await f.http().get('/admin/status').set(auth).expect(200)).body;
    expect(later).toMatchObject({
      identities: { users: { desired: 5, managed: 5, deprovisioned: 1 } },
      pending: 0,
    });
    const gone = (await f.http().get('/admin/identities/users/u5').set(auth).expect(200)).body;
    expect(gone).toMatchObject({ status: 'deprovisioned', desired: null, managed: true });
  });

  it('explains a user: desired state, target id, last applied and the history of its run', async () => {
    const f = (fixture = await startAdminFixture());
    await settledSync(f, await startSync(f, { snapshot: snapshotOf(4) }));
    await f.engine.drain();
    const onTarget = f.target.findUserByUserName('user1@example.com');

    const byId = (await f.http().get('/admin/identities/users/u1').set(auth).expect(200)).body;
    expect(byId).toMatchObject({
      kind: 'user',
      id: 'u1',
      key: 'user:u1',
      matchedBy: 'id',
      status: 'in-sync',
      desired: { id: 'u1', userName: 'user1@example.com', active: true },
      targetId: onTarget?.id,
      managed: true,
      lastResult: 'created',
      lastError: null,
      failedAt: null,
      groups: ['g-ops'],
    });
    expect(Date.parse(byId.lastAppliedAt)).toBeGreaterThan(0);
    const types = (byId.history as { type: string }[]).map((e) => e.type);
    expect(types).toContain('decision');
    expect(byId.history).toContainEqual(expect.objectContaining({ type: 'decision', decision: 'create' }));
    expect(byId.history).toContainEqual(
      expect.objectContaining({ type: 'request', method: 'POST', path: '/Users', status: 201 }),
    );

    // History holds no secrets by construction; if one ever got in, the API would not show it.
    const { store } = f.engine.bridge;
    const leaky = {
      at: Date.now(),
      type: 'request',
      authorization: 'Bearer abcdef0123456789',
      detail: 'sent Bearer abcdef0123456789 to https://svc:hunter2@idp.example.com/x?token=s3cret&page=2',
      nested: { clientSecret: 'shh', apiKey: 'k' },
    };
    await store.redis.lpush(store.keys.history('user', 'u1'), JSON.stringify(leaky));
    const redacted = (await f.http().get('/admin/identities/users/u1').set(auth).expect(200)).body.history[0];
    expect(redacted).toEqual({
      at: new Date(leaky.at).toISOString(),
      type: 'request',
      authorization: '[redacted]',
      detail: 'sent Bearer [redacted] to https://[redacted]@idp.example.com/x?token=[redacted]&page=2',
      nested: { clientSecret: '[redacted]', apiKey: '[redacted]' },
    });

    const byName = await f.http().get('/admin/identities/users/USER1%40example.com').set(auth).expect(200);
    expect(byName.body).toMatchObject({ id: 'u1', matchedBy: 'userName' });
    const group = await f.http().get('/admin/identities/groups/engineering').set(auth).expect(200);
    expect(group.body).toMatchObject({ id: 'g-eng', matchedBy: 'displayName', managed: true });
    expect(group.body.desired.members).toEqual(['u0', 'u2']);

    const missing = await f.http().get('/admin/identities/users/nobody').set(auth).expect(404);
    expect(missing.body.error.code).toBe('not_found');
    const badKind = await f.http().get('/admin/identities/people/u1').set(auth).expect(400);
    expect(badKind.body.error.code).toBe('invalid_input');
  });

  it('lists a permanent failure with the target detail, and retries it once the cause is fixed', async () => {
    const f = (fixture = await startAdminFixture());
    await f.engine.bridge.store.api.upsertUser(BAD_USER, { signal: { source: 'events' } });
    await f.engine.drain();

    const list = (await f.http().get('/admin/failures').set(auth).expect(200)).body;
    expect(list).toMatchObject({ total: 1, nextCursor: null });
    expect(list.items).toEqual([
      {
        key: 'user:bad',
        kind: 'user',
        id: 'bad',
        name: '',
        failedAt: expect.any(String),
        error: expect.objectContaining({ code: 'target_invalid_request', status: 400 }),
      },
    ]);
    expect(list.items[0].error.detail).toMatch(/userName/);
    const filtered = async (query: string) =>
      (await f.http().get(`/admin/failures?${query}`).set(auth).expect(200)).body.items.length;
    expect(await filtered('kind=group')).toBe(0);
    expect(await filtered('kind=user&code=target_invalid_request')).toBe(1);
    expect(await filtered('code=target_conflict')).toBe(0);
    await f.http().get('/admin/failures?kind=people').set(auth).expect(400);
    await f.http().get('/admin/failures?limit=0').set(auth).expect(400);

    const trace = (await f.http().get('/admin/identities/users/bad').set(auth).expect(200)).body;
    expect(trace).toMatchObject({ status: 'failed', managed: false, targetId: null, lastResult: 'failed' });
    expect(trace.lastError).toMatchObject({ code: 'target_invalid_request', status: 400 });
    expect(trace.lastError.detail).toMatch(/userName/);
    expect(trace.history).toContainEqual(expect.objectContaining({ type: 'signal', source: 'events' }));
    expect(trace.history).toContainEqual(
      expect.objectContaining({ type: 'error', code: 'target_invalid_request' }),
    );

    await fixBadUserQuietly(f);
    expect(await failureCount(f)).toBe(1);
    await f.http().post('/admin/failures/retry').set(auth).send({}).expect(400);
    await f
      .http()
      .post('/admin/failures/retry')
      .set(auth)
      .send({ keys: ['nonsense'] })
      .expect(400);
    const retried = await f
      .http()
      .post('/admin/failures/retry')
      .set(auth)
      .send({ keys: ['user:bad'] });
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ retried: 1 });
    await f.engine.drain();
    expect(await failureCount(f)).toBe(0);
    expect(f.target.findUserByUserName('fixed@example.com')).toBeDefined();
    const fixed = (await f.http().get('/admin/identities/users/bad').set(auth).expect(200)).body;
    expect(fixed).toMatchObject({ status: 'in-sync', lastError: null, failedAt: null, managed: true });
  });

  it('pages failures with a cursor and retries all of them', async () => {
    const f = (fixture = await startAdminFixture());
    for (let i = 0; i < 5; i++) await f.engine.bridge.store.api.upsertUser(twoPrimaryEmails(i));
    await f.engine.drain();
    const first = (await f.http().get('/admin/failures?limit=2').set(auth).expect(200)).body;
    expect(first.items).toHaveLength(2);
    expect(first.total).toBe(5);
    const second = (await f.http().get(`/admin/failures?limit=10&cursor=${first.nextCursor}`).set(auth)).body;
    expect(second.items).toHaveLength(3);
    expect(second.nextCursor).toBeNull();
    const keys = [...first.items, ...second.items].map((i: { key: string }) => i.key).sort();
    expect(keys).toEqual(['user:bad0', 'user:bad1', 'user:bad2', 'user:bad3', 'user:bad4']);

    f.target.resetStats();
    const all = await f.http().post('/admin/failures/retry').set(auth).send({ all: true }).expect(202);
    expect(all.body).toEqual({ retried: 5 });
    await f.engine.drain();
    // Each ran once more and, still invalid, failed again and stays listed.
    expect(f.target.stats().byRoute['POST /Users']).toBe(5);
    expect(await failureCount(f)).toBe(5);
  });
});

import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: the bridge (main.ts wiring: HTTP admin API, Redis, BullMQ workers), the reference target over
// HTTP. A held sync of a few thousand users in the streamed form: nothing applied, what it read
// and what it would remove kept in Redis (the process keeps counts and a sample), all applied once
// approved; and a cancel during the listing of the platform.
const ADMIN = 'admin-token-for-scale-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };
const NDJSON = 'application/x-ndjson';

const user = (n: number) => ({
  id: `u${n}`,
  userName: `user${n}@example.com`,
  name: { givenName: `Given${n}`, familyName: `Family${n}` },
  emails: [{ value: `user${n}@example.com`, primary: true }],
  active: true,
});
const ndjson = (count: number) =>
  Array.from({ length: count }, (_, n) => `${JSON.stringify({ user: user(n) })}\n`).join('') +
  `${JSON.stringify({ group: { id: 'g', displayName: 'Everyone', members: Array.from({ length: count }, (_, n) => `u${n}`) } })}\n`;

interface SyncView {
  state: string;
  progress: { phase: string };
  plan: {
    removals: { users: { sample: unknown[] } };
    [field: string]: unknown;
  };
  summary: Record<string, unknown>;
}

describe('full syncs at scale, streamed', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  const api = () => request(engine.bridge.http.server);
  const push = async (body: string) =>
    (await api().post('/admin/sync').set(auth).set('Content-Type', NDJSON).send(body).expect(202)).body
      .jobId as string;
  async function settled(jobId: string, states = ['completed', 'failed', 'awaiting-approval']) {
    let view = {} as SyncView;
    await expect
      .poll(
        async () => {
          view = (await api().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as typeof view;
          return states.includes(view.state);
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    return view;
  }
  const writes = () => target.stats().requests.filter((r) => r.method !== 'GET');

  it('holds 3,000 users: applies nothing, keeps what it read and would remove, then applies all', async () => {
    target = await startTarget({ pageCap: 100 });
    for (let n = 0; n < 3000; n++) {
      const { id, ...rest } = user(n);
      target.insertUser({ ...rest, externalId: id });
    }
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN });
    // The first sync adopts what the platform already holds: no write at all.
    expect((await settled(await push(ndjson(3000)))).plan).toMatchObject({ unchanged: 3000, create: 1 });
    await engine.drain();
    target.resetStats();

    const held = await push(ndjson(2200));
    const view = await settled(held);
    expect(view.state).toBe('awaiting-approval');
    expect(view.plan).toMatchObject({
      holdReasons: ['deprovision-limit'],
      users: { deprovision: 800, unchanged: 2200 },
      removals: { users: { total: 800 }, memberships: { total: 800, groups: 1 } },
    });
    // The record holds a sample; the whole run is in Redis, kept for the approval.
    expect(view.plan.removals.users.sample).toHaveLength(100);
    const { redis, keys } = engine.bridge.store;
    expect(await redis.scard(keys.syncWork(held, 'removals'))).toBe(801);
    expect(await redis.llen(keys.syncWork(held, 'src:u:order'))).toBe(2200);
    expect(await redis.ttl(keys.syncWork(held, 'src:u:ids'))).toBe(-1);
    expect(await redis.exists(keys.syncWork(held, 'ls:u:r'), keys.syncWork(held, 'plan:u'))).toBe(0);
    // Nothing applied: no write to the platform, the desired state as it was.
    expect(writes()).toEqual([]);
    expect(await engine.bridge.store.desired.getUser('u2999')).toBeDefined();
    const removed = (await api().get('/admin/identities/users/u2999').set(auth).expect(200)).body;
    expect(removed).toMatchObject({ heldBy: held });

    await api().post(`/admin/sync/${held}/approve`).set(auth).expect(202);
    const done = await settled(held, ['completed', 'failed']);
    expect(done).toMatchObject({ state: 'completed', summary: { deprovisioned: 800, failed: 0 } });
    expect(target.users().filter((u) => u.active)).toHaveLength(2200);
    expect(target.findGroupByDisplayName('Everyone')?.members).toHaveLength(2200);
    expect(await engine.bridge.store.desired.getUser('u2999')).toBeUndefined();
    expect(await redis.exists(keys.syncWork(held, 'src:u:ids'), keys.syncWork(held, 'removals'))).toBe(0);
  }, 120_000);

  it('cancels during the listing of the platform: nothing written, the listing stopped', async () => {
    target = await startTarget({ pageCap: 10, latencyMs: 30 });
    for (let n = 0; n < 2000; n++) target.insertUser({ userName: `other${n}@example.com`, active: true });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN, TARGET_CONCURRENCY: '4' });
    const jobId = await push(ndjson(20));
    await expect
      .poll(async () => (await settled(jobId, ['running'])).progress.phase, { timeout: 30_000, interval: 20 })
      .toBe('listing-target');
    await api().post(`/admin/sync/${jobId}/cancel`).set(auth).expect(202);
    const view = await settled(jobId, ['completed', 'failed']);
    expect(view).toMatchObject({ state: 'failed', error: { code: 'cancelled' } });
    // The sync ends once no page is in flight any more: the listing stopped short of its 200 pages.
    expect(target.stats().byRoute['GET /Users'] ?? 0).toBeLessThan(200);
    expect(writes()).toEqual([]);
    expect(await engine.bridge.store.desired.getUser('u0')).toBeUndefined();
    const { redis, keys } = engine.bridge.store;
    expect(await redis.exists(keys.syncWork(jobId, 'src:u:ids'), keys.syncWork(jobId, 'ls:u:r'))).toBe(0);
  });
});

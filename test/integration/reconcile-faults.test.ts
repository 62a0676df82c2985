import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, TARGET_TOKEN, type EngineFixture } from '../support/engine.js';

// Real: Redis, BullMQ workers, the reference target over HTTP scripting each fault (SPEC §6).
describe('reconciling through target faults', { timeout: 90_000 }, () => {
  let target: ReferenceTarget | undefined;
  let engine: EngineFixture | undefined;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  const users = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `u${i}`, userName: `user${i}@example.com`, active: true }));

  async function setUp(env: Record<string, string> = {}) {
    target = await startTarget();
    engine = await startEngine(target, env);
    return { target, engine };
  }

  async function expectConverged(t: ReferenceTarget, e: EngineFixture, count: number) {
    expect(
      t
        .users()
        .map((u) => u.userName)
        .sort(),
    ).toEqual(
      users(count)
        .map((u) => u.userName)
        .sort(),
    );
    expect(await e.bridge.store.redis.zcard(e.bridge.store.keys.failures())).toBe(0);
  }

  it('honours Retry-After of a 429 for all workers together, without spending attempts', async () => {
    const { target: t, engine: e } = await setUp({ RECONCILE_ATTEMPTS: '1' });
    t.faults.setRateLimit({ rps: 5, retryAfterSeconds: 1 });
    for (const u of users(12)) await e.bridge.store.api.upsertUser(u);
    await e.drain(60_000);
    await expectConverged(t, e, 12);
    const requests = t.stats().requests;
    const limited = requests.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const hit of limited) {
      // Requests already on their way may land just after (on a loaded machine, a request that
      // passed the gate a moment before the 429 can be written out 100–200 ms late); none may start
      // well inside the pause.
      const early = requests.filter(
        (r) => r.startedAt > hit.startedAt + 250 && r.startedAt < hit.startedAt + 800,
      );
      expect(early).toEqual([]);
    }
  });

  it('retries 5xx with back-off until it converges', async () => {
    const { target: t, engine: e } = await setUp();
    t.faults.setErrorRate({ fraction: 0.3, status: 500 });
    for (const u of users(20)) await e.bridge.store.api.upsertUser(u);
    await e.drain(60_000);
    await expectConverged(t, e, 20);
    expect(t.stats().byStatus['500']).toBeGreaterThan(0);
  });

  it('keeps all work through an outage and converges when the platform is back', async () => {
    const { target: t, engine: e } = await setUp({ RECONCILE_ATTEMPTS: '2' });
    await t.faults.setOutage('refuse');
    for (const u of users(10)) await e.bridge.store.api.upsertUser(u);
    await expect
      .poll(async () => (await e.bridge.store.health.read()).state, { timeout: 10_000 })
      .toBe('unavailable');
    expect(t.users()).toHaveLength(0);
    await t.faults.setOutage(null);
    await e.drain(60_000);
    await expectConverged(t, e, 10);
    expect((await e.bridge.store.health.read()).state).toBe('reachable');
  });

  it('pauses on a refused token, reports it in /readyz, and resumes once the token works again', async () => {
    const { target: t, engine: e } = await setUp({ RECONCILE_ATTEMPTS: '1' });
    t.setToken('a-rotated-token-the-bridge-lacks');
    for (const u of users(5)) await e.bridge.store.api.upsertUser(u);
    await expect
      .poll(async () => (await e.bridge.store.health.read()).state, { timeout: 10_000 })
      .toBe('auth-failed');
    const ready = await request(e.bridge.http.server).get('/readyz').expect(200);
    expect(ready.body.target.state).toBe('auth-failed');
    expect(t.users()).toHaveLength(0);
    t.setToken(TARGET_TOKEN);
    await e.drain(60_000);
    await expectConverged(t, e, 5);
  });

  it('never duplicates when responses to writes are lost', async () => {
    const { target: t, engine: e } = await setUp();
    t.faults.setLostResponseFraction(0.5);
    for (const u of users(20)) await e.bridge.store.api.upsertUser(u);
    await e.drain(60_000);
    await expectConverged(t, e, 20);
    expect(t.stats().byStatus['502']).toBeGreaterThan(0);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: the bridge (main.ts wiring: HTTP admin API, Redis, BullMQ workers, the file directory source
// on a real temporary file), the reference target over HTTP. The guards of a full sync: an empty
// source is refused, a shrunken one held, and the default DEPROVISION_LIMIT protects a small directory.
const ADMIN = 'admin-token-for-guard-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };

const user = (n: number) => ({ id: `u${n}`, userName: `user${n}@example.com`, active: true });
const directory = (count: number) => ({
  users: Array.from({ length: count }, (_, n) => user(n)),
  groups: [],
});

interface View {
  jobId: string;
  state: string;
  plan: Record<string, unknown> & { users: Record<string, number> };
  summary: Record<string, number>;
  error?: { code: string; side: string; message: string };
}

describe('full sync guards', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let dir: string | undefined;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function setUp(env: Record<string, string> = {}) {
    target = await startTarget({ pageCap: 100 });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN, ...env });
  }
  const http = () => request(engine.bridge.http.server);
  const sync = async (body: Record<string, unknown>) =>
    (await http().post('/admin/sync').set(auth).send(body).expect(202)).body.jobId as string;
  async function settled(jobId: string, states = ['completed', 'failed', 'awaiting-approval']) {
    let view = {} as View;
    await expect
      .poll(
        async () => {
          view = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as View;
          return states.includes(view.state);
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe(true);
    return view;
  }
  const run = async (body: Record<string, unknown>) => settled(await sync(body));
  const cancel = async (jobId: string) => http().post(`/admin/sync/${jobId}/cancel`).set(auth).expect(202);
  const writes = () => target.stats().requests.filter((r) => r.method !== 'GET');

  it('refuses a source that lists no users, changing nothing; with allowEmpty it runs', async () => {
    await setUp();
    expect((await run({ snapshot: directory(5) })).state).toBe('completed');
    target.resetStats();
    const refused = await run({ snapshot: { users: [], groups: [] } });
    expect(refused).toMatchObject({ state: 'failed', error: { code: 'source_empty', side: 'source' } });
    expect(refused.error?.message).toMatch(/lists no users while the bridge manages 5; nothing was changed/);
    expect(refused.error?.message).toContain('allowEmpty');
    expect(target.stats().total).toBe(0);
    expect(await engine.bridge.store.desired.getUser('u0')).toBeDefined();

    // Allowed: it runs, and like any run it is still held by the other guards with the defaults.
    const allowed = await run({ snapshot: { users: [], groups: [] }, allowEmpty: true });
    expect(allowed).toMatchObject({ state: 'awaiting-approval', allowEmpty: true });
    expect(allowed.plan).toMatchObject({ holdReasons: ['deprovision-limit', 'source-shrink'] });
    await http().post(`/admin/sync/${allowed.jobId}/approve`).set(auth).expect(202);
    expect(await settled(allowed.jobId, ['completed', 'failed'])).toMatchObject({
      state: 'completed',
      summary: { deprovisioned: 5 },
    });
    expect(target.users().filter((u) => u.active)).toHaveLength(0);
    // An empty directory on an empty bridge is nothing to refuse.
    expect((await run({ snapshot: { users: [], groups: [] } })).state).toBe('completed');
  });

  it('holds a source that shrank by more than SOURCE_SHRINK_LIMIT, showing both counts', async () => {
    await setUp({ DEPROVISION_LIMIT: '1000' });
    const first = await run({ snapshot: directory(10) });
    target.resetStats();
    const shrunk = await run({ snapshot: directory(6) });
    expect(shrunk.state).toBe('awaiting-approval');
    expect(shrunk.plan).toMatchObject({
      held: true,
      holdReasons: ['source-shrink'],
      source: {
        name: 'snapshot',
        users: 6,
        last: { jobId: first.jobId, users: 10 },
        shrunkByPercent: 40,
        shrinkLimitPercent: 30,
      },
    });
    expect(writes()).toEqual([]);
    await cancel(shrunk.jobId);
    // The cancelled one is not the baseline: 9 is compared with 10 again, 10% fewer, not held.
    const slight = await run({ snapshot: directory(9) });
    expect(slight.state).toBe('completed');
    expect(slight.plan).toMatchObject({ held: false, source: { users: 9, last: { users: 10 } } });
    expect(target.users().filter((u) => u.active)).toHaveLength(9);
  });

  it('compares a directory source with its own last sync, and approval applies what it read', async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-guards-'));
    const file = join(dir, 'directory.json');
    writeFileSync(file, JSON.stringify(directory(10)));
    await setUp({ DEPROVISION_LIMIT: '1000', DIRECTORY_SOURCE: 'file', DIRECTORY_FILE: file });
    expect(await run({})).toMatchObject({
      state: 'completed',
      plan: { source: { name: 'file', users: 10 } },
    });
    // A pushed snapshot is another source: no baseline of its own yet, so not held.
    const pushed = await run({ snapshot: directory(6) });
    expect(pushed).toMatchObject({ state: 'completed', plan: { held: false, source: { name: 'snapshot' } } });
    expect(pushed.plan.source).not.toHaveProperty('last');

    writeFileSync(file, JSON.stringify(directory(5)));
    const held = await run({});
    expect(held.state).toBe('awaiting-approval');
    expect(held.plan).toMatchObject({ source: { name: 'file', users: 5, last: { users: 10 } } });
    // The file changes again before the approval: what was shown (5 users) is what gets applied.
    writeFileSync(file, JSON.stringify(directory(8)));
    await http().post(`/admin/sync/${held.jobId}/approve`).set(auth).expect(202);
    expect((await settled(held.jobId, ['completed', 'failed'])).state).toBe('completed');
    expect(
      target
        .users()
        .filter((u) => u.active)
        .map((u) => u.userName)
        .sort(),
    ).toEqual(directory(5).users.map((u) => u.userName));
  });

  it('the default DEPROVISION_LIMIT holds 61 of 300 users, not 59', async () => {
    await setUp();
    expect((await run({ snapshot: directory(300) })).state).toBe('completed');
    target.resetStats();
    const held = await run({ snapshot: directory(239) });
    expect(held.state).toBe('awaiting-approval');
    expect(held.plan).toMatchObject({
      holdReasons: ['deprovision-limit'],
      deprovisionLimit: 60,
      deprovisionLimitSetting: '500,20%',
      users: { deprovision: 61 },
    });
    expect(writes()).toEqual([]);
    await cancel(held.jobId);

    const passed = await run({ snapshot: directory(241) });
    expect(passed).toMatchObject({ state: 'completed', plan: { held: false, deprovisionLimit: 60 } });
    expect(passed.summary).toMatchObject({ deprovisioned: 59, failed: 0 });
    await engine.drain();
    const status = (await http().get('/admin/status').set(auth).expect(200)).body;
    expect(status.identities.users).toEqual({ desired: 241, managed: 241, deprovisioned: 59 });
    const gone = (await http().get('/admin/identities/users/u299').set(auth).expect(200)).body;
    expect(gone).toMatchObject({ status: 'deprovisioned', managed: true });
  });
});

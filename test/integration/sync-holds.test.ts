import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { AdminClient } from '../../src/cli/admin-client.js';
import { explainCommand } from '../../src/cli/explain.command.js';
import { formatSyncResult, type SyncView } from '../../src/cli/sync-summary-lines.js';
import { uniquePrefix } from '../support/redis.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: the bridge (main.ts wiring: HTTP admin API, Redis, BullMQ sync and reconcile workers), the
// reference target over HTTP, the CLI's formatting and its `explain` over HTTP. Replays issue 12's
// first case in a smaller form: a snapshot missing most users, held by DEPROVISION_LIMIT, used to
// strip group members at once and leave them stripped after cancel.
const ADMIN = 'admin-token-for-hold-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };

const user = (n: number) => ({
  id: `u${n}`,
  userName: `user${n}@example.com`,
  name: { givenName: `Given${n}`, familyName: `Family${n}` },
  emails: [{ value: `user${n}@example.com`, primary: true }],
  active: true,
});
/** The first `count` of 40 users; Engineering holds those with n % 5 < 2 (16 of 40), Operations the rest. */
const directory = (count: number) => {
  const users = Array.from({ length: count }, (_, n) => user(n));
  const ids = (keep: (n: number) => boolean) => users.filter((_, n) => keep(n)).map((u) => u.id);
  return {
    users,
    groups: [
      { id: 'g-eng', displayName: 'Engineering', members: ids((n) => n % 5 < 2) },
      { id: 'g-ops', displayName: 'Operations', members: ids((n) => n % 5 >= 2) },
    ],
  };
};

describe('a held sync holds every removal of its run', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  const prefix = uniquePrefix('holds');

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  const start = async (env: Record<string, string> = {}) =>
    startEngine(target, { ADMIN_TOKEN: ADMIN, KEY_PREFIX: prefix, ...env });
  const http = () => request(engine.bridge.http.server);
  const sync = async (body: Record<string, unknown>) =>
    (await http().post('/admin/sync').set(auth).send(body).expect(202)).body.jobId as string;
  async function settled(jobId: string, states = ['completed', 'failed', 'awaiting-approval']) {
    let view = {} as SyncView & { plan: Record<string, unknown> };
    await expect
      .poll(
        async () => {
          view = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body;
          return states.includes(view.state);
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBe(true);
    return view;
  }
  const identity = async (id: string) =>
    (await http().get(`/admin/identities/users/${id}`).set(auth).expect(200)).body;
  const memberCounts = () =>
    Object.fromEntries(target.groups().map((g) => [g.displayName, g.members?.length ?? 0]));

  it('leaves the platform as it was while held and after cancel; applies all once approved, even after a restart', async () => {
    target = await startTarget({ pageCap: 25 });
    engine = await start();
    expect((await settled(await sync({ snapshot: directory(40) }))).state).toBe('completed');
    const before = memberCounts();
    expect(before).toEqual({ Engineering: 16, Operations: 24 });

    // The default limit (500 or 20% of 40 managed users: 8) holds 24 deprovisionings.
    target.resetStats();
    const first = await settled(await sync({ snapshot: directory(16) }));
    expect(first.state).toBe('awaiting-approval');
    expect(first.plan).toMatchObject({
      held: true,
      holdReasons: ['deprovision-limit', 'source-shrink'],
      deprovisionLimit: 8,
      deprovisionLimitSetting: '500,20%',
      source: { name: 'snapshot', users: 16, last: { users: 40 }, shrunkByPercent: 60 },
      removals: {
        users: { total: 24 },
        groups: { total: 0 },
        memberships: {
          total: 24,
          groups: 2,
          sample: expect.arrayContaining([
            expect.objectContaining({
              group: 'g-eng',
              displayName: 'Engineering',
              total: 9,
              removed: expect.arrayContaining([{ id: 'u20', userName: 'user20@example.com' }]),
            }),
          ]),
        },
      },
    });
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(memberCounts()).toEqual(before);
    expect(await identity('u20')).toMatchObject({ status: 'awaiting-approval', groups: ['g-eng'] });
    const group = (await http().get('/admin/identities/groups/g-eng').set(auth).expect(200)).body;
    expect(group).toMatchObject({ status: 'awaiting-approval', heldBy: first.jobId });

    // The CLI names what is held and why, with both counts of the source.
    const printed = formatSyncResult(first);
    expect(printed).toContain('Held for approval: nothing of this sync has been applied');
    expect(printed).toMatch(/deprovision 24 users, over DEPROVISION_LIMIT 500,20% \(8 users/);
    expect(printed).toMatch(/lists 16 users, 60% fewer than the 40 of its last completed sync/);
    expect(printed).toMatch(/users to deprovision: 24\n {4}u\d+ user\d+@example\.com/);
    expect(printed).toMatch(
      /members to remove: 24 from 2 groups\n {4}(Engineering \(9\)|Operations \(15\)): /,
    );

    await http().post(`/admin/sync/${first.jobId}/cancel`).set(auth).expect(202);
    expect(memberCounts()).toEqual(before);
    expect(target.users().filter((u) => u.active)).toHaveLength(40);
    expect(target.stats().requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await identity('u20')).toMatchObject({ status: 'in-sync', groups: ['g-eng'] });

    // Held again; the bridge restarts before the approval (a new process on the same Redis).
    const second = await settled(await sync({ snapshot: directory(16) }));
    expect(second.state).toBe('awaiting-approval');
    await engine.bridge.close();
    engine = await start();
    expect(memberCounts()).toEqual(before);
    await http().post(`/admin/sync/${second.jobId}/approve`).set(auth).expect(202);
    const done = await settled(second.jobId, ['completed', 'failed']);
    expect(done.state).toBe('completed');
    expect(done.summary).toMatchObject({ deprovisioned: 24, failed: 0 });
    expect(memberCounts()).toEqual({ Engineering: 7, Operations: 9 });
    expect(target.users().filter((u) => u.active)).toHaveLength(16);
    await engine.drain();

    // The deprovisioned user tells the truth, in the identity view and in `explain`.
    expect(await identity('u20')).toMatchObject({ status: 'deprovisioned', desired: null, groups: [] });
    const lines: string[] = [];
    const client = new AdminClient({ url: engine.bridge.http.url, token: ADMIN });
    expect(await explainCommand({ client, write: (text) => lines.push(text) }, 'user', 'u20')).toBe(0);
    expect(lines.join('\n')).toMatch(/^user:u20: deprovisioned \(found by id\)/);
    const status = (await http().get('/admin/status').set(auth).expect(200)).body;
    expect(status.identities.users).toEqual({ desired: 16, managed: 16, deprovisioned: 24 });
    expect(status.pending).toBe(0);
  });

  it('shows a user deleted on the platform (DEPROVISION=delete) as deprovisioned', async () => {
    target = await startTarget();
    engine = await start({ DEPROVISION: 'delete' });
    expect((await settled(await sync({ snapshot: directory(10) }))).state).toBe('completed');
    expect((await settled(await sync({ snapshot: directory(9) }))).state).toBe('completed');
    await engine.drain();
    expect(target.findUserByUserName('user9@example.com')).toBeUndefined();
    expect(await identity('u9')).toMatchObject({ status: 'deprovisioned', managed: false, targetId: null });
    const status = (await http().get('/admin/status').set(auth).expect(200)).body;
    expect(status.identities.users).toEqual({ desired: 9, managed: 9, deprovisioned: 0 });
  });
});

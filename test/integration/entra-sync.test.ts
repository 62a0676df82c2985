import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { startEntraGraph, type EntraGraphServer } from '../support/entra-graph.js';

// Real: the bridge as main.ts wires it (admin API, Redis, BullMQ sync and reconcile workers, the
// directories' delta reads every second), the reference target over HTTP, and the Entra emulation
// (sign-in and Graph over HTTP, test/support/entra-graph.ts). The first directory is configured by
// DIRECTORY_SOURCE=entra and ENTRA_* variables, scoped to an enterprise application's assignments
// and by a CEL scope over Graph's attributes (no guests); two more are `entra` items of
// `directories:` in a CONFIG_FILE, on a second tenant. The tests run in order on one tenant: each
// starts from what the previous left.
const ADMIN = 'admin-token-for-entra-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };
const DELTA_MS = 1000;
/** A change read applies a change within an interval of its making; the reconciler then writes it. */
const RECONCILE_MS = 3000;
const DAY_MS = 24 * 3600 * 1000;

interface SyncView {
  jobId: string;
  input?: string;
  state: string;
  trigger: string;
  plan?: { holdReasons?: string[] };
  error?: { message: string };
}

describe('an Entra ID tenant read through Microsoft Graph', () => {
  let entra: EntraGraphServer;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let dir: string;
  const u: string[] = [];
  const g: Record<'parent' | 'child' | 'grandchild' | 'other', string> = {
    parent: '',
    child: '',
    grandchild: '',
    other: '',
  };

  beforeAll(async () => {
    entra = await startEntraGraph();
    target = await startTarget();
    const app = entra.createApp({
      displayName: 'scim-bridge',
      permissions: ['User.Read.All', 'GroupMember.Read.All', 'Application.Read.All'],
    });
    const { secret } = entra.addSecret(app.clientId);
    const databricks = entra.createApp({ displayName: 'Databricks' });
    seedTenant(databricks.servicePrincipalId);
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-entra-'));
    const configFile = join(dir, 'config.yaml');
    writeFileSync(configFile, secondTenant());
    engine = await startEngine(target, {
      ADMIN_TOKEN: ADMIN,
      DIRECTORY_SOURCE: 'entra',
      DIRECTORY_DELTA_SECONDS: String(DELTA_MS / 1000),
      DEPROVISION_LIMIT: '3',
      ENTRA_TENANT_ID: entra.tenantId,
      ENTRA_CLIENT_ID: app.clientId,
      ENTRA_CLIENT_SECRET: secret,
      ENTRA_ASSIGNED_TO: databricks.servicePrincipalId,
      ENTRA_AUTHORITY_HOST: entra.loginUrl,
      ENTRA_GRAPH_URL: entra.graphUrl,
      CONFIG_FILE: configFile,
    });
  }, 30_000);
  afterAll(async () => {
    await engine?.close();
    await target?.close();
    await entra?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Users u0…u11; Parent (assigned) ⊃ Child ⊃ Grandchild; Other not assigned; u8 assigned alone. */
  function seedTenant(servicePrincipalId: string): void {
    for (let n = 0; n < 12; n++) {
      const user = entra.createUser({
        userPrincipalName: `u${n}@${entra.domain}`,
        displayName: `User ${n}`,
        givenName: 'User',
        surname: `N${n}`,
        mail: `u${n}@contoso.example`,
      });
      u.push(user.id);
    }
    g.parent = entra.createGroup({ displayName: 'Parent' }).id;
    g.child = entra.createGroup({ displayName: 'Child' }).id;
    g.grandchild = entra.createGroup({ displayName: 'Grandchild' }).id;
    g.other = entra.createGroup({ displayName: 'Other' }).id;
    const member = (group: string, ...ns: number[]) =>
      ns.forEach((n) => entra.addMember(group, u[n] as string));
    entra.addMember(g.parent, g.child);
    entra.addMember(g.child, g.grandchild);
    member(g.parent, 0, 1);
    member(g.child, 2, 3, 4);
    member(g.grandchild, 2, 5, 6, 7);
    member(g.other, 9, 10);
    entra.addMember(g.grandchild, entra.createObject('device', { displayName: 'Kiosk' }).id);
    // A guest in an assigned group: the scope (userType != "Guest") leaves it out.
    const guest = entra.createUser({
      userPrincipalName: `ann_partner.example#EXT#@${entra.domain}`,
      displayName: 'Ann (guest)',
      userType: 'Guest',
    });
    entra.addMember(g.child, guest.id);
    entra.assign(servicePrincipalId, g.parent);
    entra.assign(servicePrincipalId, u[8] as string);
  }

  /** `second` reads another tenant; `third` has the secret's ID where its value belongs. */
  function secondTenant(): string {
    const tenant = entra.addTenant({ domain: 'fabrikam.onmicrosoft.com' });
    const app = tenant.createApp({ permissions: ['User.Read.All', 'GroupMember.Read.All'] });
    const { secret, secretId } = tenant.addSecret(app.clientId);
    tenant.createUser({ userPrincipalName: `fab1@${tenant.domain}`, displayName: 'Fab 1' });
    tenant.createUser({ userPrincipalName: `fab2@${tenant.domain}`, displayName: 'Fab 2' });
    const entraOf = (clientSecret: string) =>
      JSON.stringify({
        tenantId: tenant.tenantId,
        clientId: app.clientId,
        clientSecret,
        authorityHost: entra.loginUrl,
        graphUrl: entra.graphUrl,
      });
    return [
      'directory:',
      '  entra:',
      '    pageSize: 3',
      '  scope:',
      `    users: 'userType != "Guest"'`,
      'directories:',
      `  - {name: second, source: entra, deltaSeconds: 1, entra: ${entraOf(secret)}}`,
      `  - {name: third, source: entra, deltaSeconds: 1, entra: ${entraOf(secretId)}}`,
      '',
    ].join('\n');
  }

  const http = () => request(engine.bridge.http.server);
  const sync = async (body: Record<string, unknown>) =>
    (await http().post('/admin/sync').set(auth).send(body).expect(202)).body.jobId as string;
  const view = async (jobId: string) =>
    (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as SyncView;
  /** The syncs of the first directory (the others run their own). */
  const syncs = async () =>
    ((await http().get('/admin/sync').set(auth).expect(200)).body.syncs as SyncView[]).filter(
      (s) => s.input === 'directory:directory',
    );
  async function settled(jobId: string): Promise<SyncView> {
    let last = {} as SyncView;
    await expect
      .poll(
        async () => {
          last = await view(jobId);
          return ['completed', 'failed', 'awaiting-approval'].includes(last.state);
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    return last;
  }
  const userOf = (n: number) => target.users().find((user) => user.externalId === u[n]);
  const groupNamed = (name: string) => target.groups().find((group) => group.displayName === name);
  /** The users (by index) a platform group holds. */
  const membersOf = (name: string) => {
    const ids = new Set(groupNamed(name)?.members?.map((m) => m.value) ?? []);
    return u.flatMap((_, n) => (ids.has(userOf(n)?.id ?? '-') ? [n] : [])).sort((a, b) => a - b);
  };

  it('reads the assigned users and groups in full by itself, nested members flattened, the rest left out', async () => {
    // No sync is asked for: the first delta tick finds no watermark and reads the input in full.
    await expect
      .poll(() => ({ users: target.users().length, parent: membersOf('Parent') }), {
        timeout: 20_000,
        interval: 100,
      })
      .toEqual({ users: 9 + 2, parent: [0, 1, 2, 3, 4, 5, 6, 7] });
    expect(membersOf('Child')).toEqual([2, 3, 4, 5, 6, 7]);
    expect(membersOf('Grandchild')).toEqual([2, 5, 6, 7]);
    expect(groupNamed('Other')).toBeUndefined();
    for (const n of [9, 10, 11]) expect(userOf(n)).toBeUndefined();
    expect(target.users().filter((user) => user.userName.includes('#EXT#'))).toEqual([]);
    expect(userOf(8)).toMatchObject({
      userName: `u8@${entra.domain}`,
      name: { givenName: 'User', familyName: 'N8' },
      emails: [{ value: 'u8@contoso.example', primary: true }],
      active: true,
    });
    // The directories: item on the second tenant: its two users, owned by directory:second.
    const fabrikam = target.users().filter((user) => user.userName.endsWith('@fabrikam.onmicrosoft.com'));
    expect(fabrikam).toHaveLength(2);
  });

  it('makes a user disabled in Entra inactive on the platform within two delta intervals', async () => {
    const before = new Set((await syncs()).map((s) => s.jobId));
    const started = Date.now();
    entra.updateUser(u[1] as string, { accountEnabled: false });
    await expect
      .poll(() => userOf(1)?.active, { timeout: 2 * DELTA_MS + RECONCILE_MS, interval: 50 })
      .toBe(false);
    expect(Date.now() - started).toBeLessThan(2 * DELTA_MS + RECONCILE_MS);
    // By a delta read: no sync was started for it.
    expect((await syncs()).filter((s) => !before.has(s.jobId))).toEqual([]);
  });

  it("puts a user added to a child group of an assigned group among the parent's members, by deltas alone", async () => {
    const before = new Set((await syncs()).map((s) => s.jobId));
    const newcomer = entra.createUser({ userPrincipalName: `u12@${entra.domain}`, displayName: 'User 12' });
    u.push(newcomer.id);
    entra.addMember(g.grandchild, newcomer.id);
    await expect
      .poll(
        () => [membersOf('Parent'), membersOf('Child'), membersOf('Grandchild')].map((m) => m.includes(12)),
        {
          timeout: 10_000,
          interval: 100,
        },
      )
      .toEqual([true, true, true]);
    expect((await syncs()).filter((s) => !before.has(s.jobId))).toEqual([]);
  });

  it('takes a soft-deleted user out of every group at once, and keeps it out', async () => {
    entra.deleteUser(u[2] as string);
    await expect
      .poll(
        () => ({
          active: userOf(2)?.active,
          groups: ['Parent', 'Child', 'Grandchild'].filter((name) => membersOf(name).includes(2)),
        }),
        { timeout: 10_000, interval: 100 },
      )
      .toEqual({ active: false, groups: [] });
    // Group delta still lists it in Child and Grandchild until the hard delete: a later change of
    // Child (u9 joins: it enters the scope) sends Child again, without it.
    // Child and Parent are written by a reconcile job each: both are waited for.
    entra.addMember(g.child, u[9] as string);
    await expect
      .poll(() => ({ child: membersOf('Child'), parent: membersOf('Parent') }), {
        timeout: 10_000,
        interval: 100,
      })
      .toEqual({ child: [3, 4, 5, 6, 7, 9, 12], parent: [0, 1, 3, 4, 5, 6, 7, 9, 12] });
    expect(userOf(9)).toMatchObject({ userName: `u9@${entra.domain}`, active: true });
  });

  it('keeps one account when the userPrincipalName changes', async () => {
    const account = userOf(3)?.id;
    entra.updateUser(u[3] as string, { userPrincipalName: `u3-renamed@${entra.domain}` });
    await expect
      .poll(() => userOf(3)?.userName, { timeout: 10_000, interval: 100 })
      .toBe(`u3-renamed@${entra.domain}`);
    expect(userOf(3)?.id).toBe(account);
    expect(target.users().filter((user) => user.externalId === u[3])).toHaveLength(1);
    expect(target.findUserByUserName(`u3@${entra.domain}`)).toBeUndefined();
  });

  it('reads the tenant in full by itself when its delta links expired, and converges', async () => {
    const before = new Set((await syncs()).map((s) => s.jobId));
    const from = entra.requests().length;
    entra.clock.advance(8 * DAY_MS); // Graph keeps delta links about 7 days: syncStateNotFound
    entra.addMember(g.grandchild, u[10] as string);
    entra.updateGroup(g.child, { displayName: 'Child renamed' });
    await expect
      .poll(async () => (await syncs()).find((s) => !before.has(s.jobId))?.state, {
        timeout: 20_000,
        interval: 100,
      })
      .toBe('completed');
    expect((await syncs()).filter((s) => !before.has(s.jobId)).map((s) => s.trigger)).toEqual(['delta']);
    const refused = entra
      .requests()
      .slice(from)
      .filter((r) => r.status === 400);
    expect(refused.some((r) => r.path.startsWith('/v1.0/users/delta?$deltatoken='))).toBe(true);
    await engine.drain();
    expect(groupNamed('Child')).toBeUndefined();
    expect(membersOf('Child renamed')).toEqual([3, 4, 5, 6, 7, 9, 10, 12]);
    expect(membersOf('Parent')).toContain(10);
    // And the change reads go on from the full read's position.
    entra.updateUser(u[0] as string, { surname: 'Changed' });
    await expect.poll(() => userOf(0)?.name?.familyName, { timeout: 10_000, interval: 100 }).toBe('Changed');
  });

  it('completes a full read with a third of its requests throttled', async () => {
    entra.setDeltaPaging({ objectsPerPage: 2, membersPerPage: 3 });
    const from = entra.requests().length;
    entra.faults.randomly(1 / 3, 31, { status: 429, retryAfter: 1 });
    try {
      const done = await settled(await sync({}));
      expect(done).toMatchObject({ state: 'completed' });
    } finally {
      entra.faults.clear();
      entra.setDeltaPaging({ objectsPerPage: 50, membersPerPage: 250 });
    }
    const graph = entra
      .requests()
      .slice(from)
      .filter((r) => r.host === 'graph');
    const throttled = graph.filter((r) => r.status === 429).length;
    expect(graph.length).toBeGreaterThan(15);
    // A third drawn at random (seeded, but the draws follow whatever reads Graph meanwhile, a delta
    // read on its timer included): well above a tenth whatever the interleaving.
    expect(throttled / graph.length).toBeGreaterThan(0.1);
    expect(graph.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
    await engine.drain();
    expect(membersOf('Parent')).toEqual([0, 1, 3, 4, 5, 6, 7, 9, 10, 12]);
  });

  it('holds a delta that removes more than DEPROVISION_LIMIT users, and applies it once approved', async () => {
    const before = new Set((await syncs()).map((s) => s.jobId));
    for (const n of [4, 5, 6, 7]) entra.deleteUser(u[n] as string);
    let held: SyncView | undefined;
    await expect
      .poll(
        async () => {
          held = (await syncs()).find((s) => !before.has(s.jobId) && s.state === 'awaiting-approval');
          return held?.trigger;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe('delta');
    expect((await view(held?.jobId as string)).plan?.holdReasons).toEqual(['deprovision-limit']);
    expect([4, 5, 6, 7].map((n) => userOf(n)?.active)).toEqual([true, true, true, true]);
    await http().post(`/admin/sync/${held?.jobId}/approve`).set(auth).expect(202);
    await expect
      .poll(() => [4, 5, 6, 7].map((n) => userOf(n)?.active), { timeout: 10_000, interval: 100 })
      .toEqual([false, false, false, false]);
  });

  it("reports a wrong secret as such, in the sync's error and the input's status", async () => {
    const done = await settled(await sync({ input: 'directory:third' }));
    expect(done.state).toBe('failed');
    expect(done.error?.message).toContain("the client secret is wrong — often the secret's ID was pasted");
    const status = (await http().get('/admin/status').set(auth).expect(200)).body as {
      inputs: { input: string; lastError: string | null }[];
    };
    const third = status.inputs.find((i) => i.input === 'directory:third');
    expect(third?.lastError).toContain('the client secret is wrong');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { ldapChange, ldapSourceEnv, testDirectory } from '../support/ldap-directory.js';
import { uniquePrefix } from '../support/redis.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

// Real: slapd with the syncprov, accesslog and refint overlays (test/support/slapd.ts), the bridge
// (main.ts wiring: admin API, Redis, BullMQ workers, the ldap source and its delta reads), the
// reference target over HTTP. What is checked: after one full sync, the directory's changes reach
// the platform through delta reads alone — no listing of the directory or the platform — and the
// guards and the watermark's trust hold.
const SUFFIX = 'dc=example,dc=com';
const PEOPLE = 2000;
const DELTA_SECONDS = 2;
const ADMIN = 'admin-token-for-ldap-deltas';
const auth = { Authorization: `Bearer ${ADMIN}` };
const { person, dnOf, groupDn, ldif } = testDirectory(SUFFIX, 4);

function directoryLdif(): string {
  return ldif(PEOPLE, [
    ['platform', [dnOf(1), dnOf(2)]],
    ['engineering', [dnOf(3), groupDn('platform')]],
  ]);
}

describe('delta reads of an OpenLDAP directory (accesslog)', () => {
  let dir: string;
  let slapd: Slapd;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let ldap: Client;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-ldap-deltas-'));
    writeFileSync(join(dir, 'directory.ldif'), directoryLdif());
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await ldap?.unbind().catch(() => undefined);
    await engine?.close();
    await target?.close();
    await slapd?.stop();
  });

  async function setUp(): Promise<void> {
    slapd = await startSlapd({ suffix: SUFFIX, ldif: [join(dir, 'directory.ldif')] });
    target = await startTarget({ pageCap: 100 });
    await startBridge();
    ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
  }
  /** A bridge on the test's Redis keys (a second one after a stop takes up where it was). */
  async function startBridge(keyPrefix = uniquePrefix()): Promise<void> {
    engine = await startEngine(target, {
      KEY_PREFIX: keyPrefix,
      ADMIN_TOKEN: ADMIN,
      ...ldapSourceEnv(slapd, SUFFIX, DELTA_SECONDS),
    });
  }
  const http = () => request(engine.bridge.http.server);
  async function sync(): Promise<{ state: string; trigger: string }> {
    const { jobId } = (await http().post('/admin/sync').set(auth).send({}).expect(202)).body as {
      jobId: string;
    };
    return settled(jobId);
  }
  async function settled(jobId: string) {
    let view = { state: '', trigger: '' };
    await expect
      .poll(
        async () => {
          view = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as typeof view;
          return ['completed', 'failed', 'awaiting-approval'].includes(view.state);
        },
        { timeout: 120_000, interval: 100 },
      )
      .toBe(true);
    return view;
  }
  const userByName = (userName: string) => target.users().find((u) => u.userName === userName);
  const groupByName = (name: string) => target.groups().find((g) => g.displayName === name);
  const syncs = async () =>
    (
      (await http().get('/admin/sync').set(auth).expect(200)).body as {
        syncs: { state: string; trigger: string; jobId: string }[];
      }
    ).syncs;
  const syncIds = async () => new Set((await syncs()).map((s) => s.jobId));
  /** The syncs recorded since `earlier` was taken. */
  const syncsSince = async (earlier: ReadonlySet<string>) =>
    (await syncs()).filter((s) => !earlier.has(s.jobId));

  it('brings a modify, an add, a membership change, a delete and a rename to the platform, listing nothing', async () => {
    await setUp();
    expect(await sync()).toMatchObject({ state: 'completed' });
    expect(target.users()).toHaveLength(PEOPLE);
    target.resetStats();

    await ldap.modify(dnOf(10), ldapChange('replace', 'sn', 'Changed'));
    await ldap.add(`uid=newcomer,ou=people,${SUFFIX}`, {
      objectClass: 'inetOrgPerson',
      uid: 'newcomer',
      cn: 'New Comer',
      sn: 'Comer',
      mail: 'newcomer@example.com',
    });
    await ldap.modify(groupDn('platform'), ldapChange('add', 'member', dnOf(20)));
    await ldap.del(dnOf(30));
    await ldap.modifyDN(dnOf(40), `uid=${person(40)}-renamed`);

    const platformId = () => groupByName('platform')?.id;
    await expect
      .poll(
        () => {
          const engineering = groupByName('engineering')?.members?.map((m) => m.value) ?? [];
          return {
            changed: userByName(`${person(10)}@example.com`)?.name?.familyName,
            added: userByName('newcomer@example.com') !== undefined,
            deleted: userByName(`${person(30)}@example.com`)?.active,
            nested: engineering.includes(userByName(`${person(20)}@example.com`)?.id ?? '-'),
            platform: platformId() !== undefined,
          };
        },
        { timeout: 3 * DELTA_SECONDS * 1000 + 15_000, interval: 200 },
      )
      .toEqual({ changed: 'Changed', added: true, deleted: false, nested: true, platform: true });
    // The rename kept its account: same userName (its mail), one account, no second one.
    expect(target.users().filter((u) => u.userName === `${person(40)}@example.com`)).toHaveLength(1);
    expect(target.users()).toHaveLength(PEOPLE + 1);
    // Freshness: the directory says it read its source by delta just now, and how far behind it is.
    const status = (await http().get('/admin/status').set(auth).expect(200)).body as {
      inputs: {
        input: string;
        pull: unknown;
        lastReadKind: string;
        lagSeconds: number;
        state: string;
        reads: { reads: number; changes: number; entriesRead: number };
      }[];
    };
    const directory = status.inputs.find((i) => i.input === 'directory:directory');
    expect(directory).toMatchObject({
      state: 'ok',
      pull: { read: 'delta', everySeconds: DELTA_SECONDS, watermarkKind: 'openldap-accesslog' },
      lastReadKind: 'delta',
    });
    // The delta reads added up: at least the five changes above, and what they read for them.
    expect(directory?.reads.changes).toBeGreaterThanOrEqual(5);
    expect(directory?.reads.entriesRead).toBeGreaterThanOrEqual(directory?.reads.changes ?? 0);
    const metrics = (await http().get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^scim_bridge_input_lag_seconds\{input="directory:directory"\} \d/m);
    // No listing: a listing of 2,000 users at 100 a page alone is 20 GETs of /Users.
    const lists = target.stats().requests.filter((r) => r.method === 'GET' && r.route === '/Users');
    expect(lists.length).toBeLessThanOrEqual(5);
  }, 180_000);

  it('takes the members of a deleted nested group out of the groups that held it', async () => {
    await setUp();
    expect(await sync()).toMatchObject({ state: 'completed' });
    const idOf = (n: number) => userByName(`${person(n)}@example.com`)?.id ?? '-';
    const engineering = () => (groupByName('engineering')?.members?.map((m) => m.value) ?? []).sort();
    expect(engineering()).toEqual([idOf(1), idOf(2), idOf(3)].sort());
    target.resetStats();

    // refint takes the group out of engineering's members; the log holds only the delete.
    await ldap.del(groupDn('platform'));
    await expect
      .poll(() => ({ engineering: engineering(), platform: groupByName('platform') !== undefined }), {
        timeout: 3 * DELTA_SECONDS * 1000 + 15_000,
        interval: 200,
      })
      .toEqual({ engineering: [idOf(3)], platform: false });
    // Read by deltas alone: no listing of the platform's users.
    const lists = target.stats().requests.filter((r) => r.method === 'GET' && r.route === '/Users');
    expect(lists.length).toBeLessThanOrEqual(5);
  }, 180_000);

  it('holds a delta that deletes 45% of the people: nobody is deprovisioned until approved', async () => {
    await setUp();
    expect(await sync()).toMatchObject({ state: 'completed' });
    // The bridge is down while 45% of the people are deleted: its first delta read finds them all.
    // (Its first delta tick may have run the first full sync itself: only later records count.)
    const earlier = await syncIds();
    const keyPrefix = engine.bridge.config.redis.keyPrefix;
    await engine.bridge.close();
    const gone = Math.round(PEOPLE * 0.45);
    for (let n = 1001; n < 1001 + gone; n++) await ldap.del(dnOf(n));
    target.resetStats();
    await startBridge(keyPrefix);

    let held: { jobId: string } | undefined;
    await expect
      .poll(
        async () => {
          held = (await syncsSince(earlier)).find(
            (s) => s.trigger === 'delta' && s.state === 'awaiting-approval',
          );
          return held !== undefined;
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    const view = (await http().get(`/admin/sync/${held?.jobId}`).set(auth).expect(200)).body;
    expect(view.plan).toMatchObject({
      held: true,
      holdReasons: ['deprovision-limit'],
      deprovisionLimit: 400,
      users: { deprovision: gone },
      removals: { users: { total: gone } },
    });
    // Later deltas wait behind it; nobody is deprovisioned while it is held.
    expect((await syncsSince(earlier)).filter((s) => s.trigger === 'delta')).toHaveLength(1);
    expect(target.users().filter((u) => u.active === false)).toHaveLength(0);
    expect(target.stats().byMethod.PATCH ?? 0).toBe(0);

    await http().post(`/admin/sync/${held?.jobId}/approve`).set(auth).expect(202);
    await expect
      .poll(() => target.users().filter((u) => u.active === false).length, { timeout: 60_000, interval: 200 })
      .toBe(gone);
  }, 180_000);

  it('reads the directory in full by itself when it was restored from an older backup', async () => {
    await setUp();
    expect(await sync()).toMatchObject({ state: 'completed' });
    const backup = await slapd.backup();
    await ldap.add(`uid=later,ou=people,${SUFFIX}`, {
      objectClass: 'inetOrgPerson',
      uid: 'later',
      cn: 'Later',
      sn: 'Later',
      mail: 'later@example.com',
    });
    await expect
      .poll(() => userByName('later@example.com')?.active, { timeout: 30_000, interval: 200 })
      .toBe(true);

    const earlier = await syncIds();
    await ldap.unbind();
    await slapd.restore(backup);
    // The restored directory no longer holds `later`: the watermark went backwards, a full sync
    // starts by itself and deprovisions it.
    await expect
      .poll(
        async () => (await syncsSince(earlier)).some((s) => s.trigger === 'delta' && s.state === 'completed'),
        {
          timeout: 60_000,
          interval: 200,
        },
      )
      .toBe(true);
    await expect
      .poll(() => userByName('later@example.com')?.active, { timeout: 30_000, interval: 200 })
      .toBe(false);
  }, 180_000);
});

import type { Client } from 'ldapts';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { adSourceEnv, ldapChange } from '../support/ldap-directory.js';
import { logSink, type LogSink } from '../support/log-sink.js';
import { uniquePrefix } from '../support/redis.js';
import { provisionSambaDc, type SambaDc, type SambaTemplate } from '../support/samba-dc.js';

// Real: a Samba Active Directory domain controller (test/support/samba-dc.ts: provisioned once for
// the file, seeded with 300 people, a copy started per test), the bridge (main.ts wiring: admin API,
// Redis, BullMQ workers, the ldap source with the active-directory preset and its uSNChanged delta
// reads), the reference target over HTTP. What is checked: a full sync brings the domain's people
// and groups; after it, the domain's changes reach the platform through delta reads alone — no
// listing of the directory or the platform; the guard holds a delta that removes too many; a
// domain controller restored from a backup is read in full by itself.
const PEOPLE = 300;
const DELTA_SECONDS = 1;
const ADMIN = 'admin-token-for-ad-deltas';
const auth = { Authorization: `Bearer ${ADMIN}` };
const person = (n: number) => `p${String(n).padStart(4, '0')}`;
const ACCOUNT_ENABLED = '544'; // NORMAL_ACCOUNT | PASSWD_NOTREQD
const ACCOUNT_DISABLED = '546'; // … | ACCOUNTDISABLE

let template: SambaTemplate;
let base: string;
let domain: string;
const ou = (name: string) => `OU=${name},${base}`;
const dnOf = (n: number) => `CN=${person(n)},${ou('Staff')}`;
const groupDn = (cn: string) => `CN=${cn},${ou('Groups')}`;
const upn = (name: string) => `${name}@${domain}`;

async function addPerson(ldap: Client, name: string, parent = ou('Staff')): Promise<void> {
  await ldap.add(`CN=${name},${parent}`, {
    objectClass: 'user',
    sAMAccountName: name,
    userPrincipalName: upn(name),
    givenName: 'Person',
    sn: name,
    mail: upn(name),
    userAccountControl: ACCOUNT_ENABLED,
  });
}

beforeAll(async () => {
  template = await provisionSambaDc();
  base = template.baseDn;
  domain = template.realm.toLowerCase();
  await template.seed(async (dc) => {
    const ldap = await dc.client();
    try {
      for (const name of ['Staff', 'Groups', 'Elsewhere'])
        await ldap.add(ou(name), { objectClass: 'organizationalUnit', ou: name });
      for (let n = 1; n <= PEOPLE; n++) await addPerson(ldap, person(n));
      await ldap.add(groupDn('platform'), {
        objectClass: 'group',
        sAMAccountName: 'platform',
        member: [dnOf(1), dnOf(2)],
      });
      await ldap.add(groupDn('engineering'), {
        objectClass: 'group',
        sAMAccountName: 'engineering',
        member: [dnOf(3), groupDn('platform')],
      });
    } finally {
      await ldap.unbind();
    }
  });
}, 300_000);

afterAll(() => template?.remove());

describe('delta reads of Active Directory (uSNChanged, Samba AD DC)', () => {
  let dc: SambaDc;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let ldap: Client;
  let logs: LogSink;

  afterEach(async () => {
    await ldap?.unbind().catch(() => undefined);
    await engine?.close();
    await target?.close();
    await dc?.stop();
  });

  async function setUp(): Promise<void> {
    dc = await template.start();
    target = await startTarget({ pageCap: 25 });
    await startBridge();
    ldap = await dc.client();
  }
  /** A bridge on the test's Redis keys (a second one after a stop takes up where it was). */
  async function startBridge(keyPrefix = uniquePrefix()): Promise<void> {
    logs = logSink([], 'info');
    engine = await startEngine(
      target,
      {
        KEY_PREFIX: keyPrefix,
        ADMIN_TOKEN: ADMIN,
        ...adSourceEnv(dc, { userBase: ou('Staff'), groupBase: ou('Groups') }, DELTA_SECONDS),
      },
      { logger: logs.logger },
    );
  }
  const http = () => request(engine.bridge.http.server);
  async function sync(): Promise<{ state: string }> {
    const { jobId } = (await http().post('/admin/sync').set(auth).send({}).expect(202)).body as {
      jobId: string;
    };
    let view = { state: '' };
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
  const userByName = (name: string) => target.users().find((u) => u.userName === upn(name));
  const memberNames = (group: string) => {
    const ids =
      target
        .groups()
        .find((g) => g.displayName === group)
        ?.members?.map((m) => m.value) ?? [];
    return target
      .users()
      .filter((u) => ids.includes(u.id))
      .map((u) => u.userName.split('@')[0])
      .sort();
  };
  const syncs = async () =>
    (
      (await http().get('/admin/sync').set(auth).expect(200)).body as {
        syncs: { state: string; trigger: string; jobId: string }[];
      }
    ).syncs;
  const highestUsn = async () => {
    const { searchEntries } = await ldap.search('', { scope: 'base', attributes: ['highestCommittedUSN'] });
    return BigInt(String(searchEntries[0]?.highestCommittedUSN));
  };
  /** Why the bridge read the directory in full because of its watermark, as it logged it. */
  const untrustedReasons = () =>
    logs
      .lines()
      .filter((line) => line.msg === 'delta read not possible: the input is read in full')
      .map((line) => String(line.reason))
      .filter((reason) => reason.includes('cannot be trusted'));

  it('brings a full sync, then a disable, a delete, a rename, a move out and group member changes, listing nothing', async () => {
    await setUp();
    expect(await sync()).toMatchObject({ state: 'completed' });
    expect(target.users()).toHaveLength(PEOPLE);
    expect(target.users().every((u) => u.active)).toBe(true);
    expect(userByName(person(7))).toMatchObject({ name: { givenName: 'Person', familyName: person(7) } });
    expect(memberNames('platform')).toEqual([person(1), person(2)]);
    expect(memberNames('engineering')).toEqual([person(1), person(2), person(3)]);
    const renamedId = userByName(person(40))?.id;
    target.resetStats();

    await ldap.modify(dnOf(10), ldapChange('replace', 'userAccountControl', ACCOUNT_DISABLED));
    await ldap.del(dnOf(30));
    await ldap.modifyDN(dnOf(40), `CN=${person(40)}-renamed`);
    await ldap.modifyDN(dnOf(50), `CN=${person(50)},${ou('Elsewhere')}`);
    await ldap.modify(dnOf(60), ldapChange('replace', 'sn', 'Changed'));
    await ldap.modify(groupDn('platform'), ldapChange('add', 'member', dnOf(20)));
    await ldap.modify(groupDn('platform'), ldapChange('delete', 'member', dnOf(2)));
    await addPerson(ldap, 'newcomer');

    await expect
      .poll(
        () => ({
          disabled: userByName(person(10))?.active,
          deleted: userByName(person(30))?.active,
          movedOut: userByName(person(50))?.active,
          changed: userByName(person(60))?.name?.familyName,
          added: userByName('newcomer')?.active,
          platform: memberNames('platform'),
          engineering: memberNames('engineering'),
        }),
        { timeout: 3 * DELTA_SECONDS * 1000 + 20_000, interval: 200 },
      )
      .toEqual({
        disabled: false,
        deleted: false,
        movedOut: false,
        changed: 'Changed',
        added: true,
        platform: [person(1), person(20)],
        engineering: [person(1), person(3), person(20)],
      });
    // The rename kept its account: one account with its userName, the same one, still active.
    const renamed = target.users().filter((u) => u.userName === upn(person(40)));
    expect(renamed).toMatchObject([{ id: renamedId, active: true }]);
    expect(target.users()).toHaveLength(PEOPLE + 1);
    // No listing: the newcomer's two look-ups (by externalId, then userName) are the only GETs of
    // /Users; a listing of 300 users at 25 a page alone is 12.
    const lists = target.stats().requests.filter((r) => r.method === 'GET' && r.route === '/Users');
    expect(lists.length).toBeLessThanOrEqual(2);
    expect(untrustedReasons()).toEqual([]);

    // A nested group deleted: AD takes it out of engineering without bumping engineering's
    // uSNChanged; its members leave engineering all the same.
    await ldap.del(groupDn('platform'));
    await expect
      .poll(
        () => ({
          engineering: memberNames('engineering'),
          platform: target.groups().some((g) => g.displayName === 'platform'),
        }),
        { timeout: 3 * DELTA_SECONDS * 1000 + 20_000, interval: 200 },
      )
      .toEqual({ engineering: [person(3)], platform: false });
    expect(untrustedReasons()).toEqual([]);
  }, 240_000);

  it('holds a delta that deletes 45% of the people: nobody is deprovisioned until approved', async () => {
    await setUp();
    expect(await sync()).toMatchObject({ state: 'completed' });
    const keyPrefix = engine.bridge.config.redis.keyPrefix;
    await engine.bridge.close();
    const gone = Math.round(PEOPLE * 0.45);
    for (let n = 101; n < 101 + gone; n++) await ldap.del(dnOf(n));
    target.resetStats();
    await startBridge(keyPrefix);

    let held: { jobId: string } | undefined;
    await expect
      .poll(
        async () => {
          held = (await syncs()).find((s) => s.trigger === 'delta' && s.state === 'awaiting-approval');
          return held !== undefined;
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    const view = (await http().get(`/admin/sync/${held?.jobId}`).set(auth).expect(200)).body;
    expect(view.plan).toMatchObject({
      held: true,
      holdReasons: ['deprovision-limit'],
      deprovisionLimit: 60,
      users: { deprovision: gone },
    });
    expect(target.users().filter((u) => u.active === false)).toHaveLength(0);
    expect(target.stats().byMethod.PATCH ?? 0).toBe(0);

    await http().post(`/admin/sync/${held?.jobId}/approve`).set(auth).expect(202);
    await expect
      .poll(() => target.users().filter((u) => u.active === false).length, { timeout: 60_000, interval: 200 })
      .toBe(gone);
  }, 240_000);

  it('reads the domain in full by itself when the DC was restored from a backup (a new invocationId)', async () => {
    dc = await template.start();
    const backup = await dc.backup();
    target = await startTarget({ pageCap: 25 });
    await startBridge();
    ldap = await dc.client();
    expect(await sync()).toMatchObject({ state: 'completed' });
    await addPerson(ldap, 'later');
    await expect.poll(() => userByName('later')?.active, { timeout: 30_000, interval: 200 }).toBe(true);
    const seen = await highestUsn();

    // The bridge is down while the DC is restored and written to, until its USNs are past those
    // the bridge has seen: by USN alone, the bridge would take the new writes for old ones.
    const keyPrefix = engine.bridge.config.redis.keyPrefix;
    await engine.bridge.close();
    await ldap.unbind();
    await dc.restore(backup, { newInvocationId: true });
    ldap = await dc.client();
    const after: string[] = [];
    while ((await highestUsn()) <= seen + 2n) {
      after.push(`after${after.length + 1}`);
      await addPerson(ldap, after.at(-1) ?? '');
    }
    await startBridge(keyPrefix);

    await expect
      .poll(
        () => ({ later: userByName('later')?.active, after: after.map((name) => userByName(name)?.active) }),
        { timeout: 60_000, interval: 200 },
      )
      .toEqual({ later: false, after: after.map(() => true) });
    expect(untrustedReasons()).toEqual([expect.stringMatching(/invocationId changed from .+ to .+/)]);
  }, 240_000);

  it('reads the domain in full by itself when a copy of its past comes back (highestCommittedUSN went back)', async () => {
    dc = await template.start();
    const backup = await dc.backup();
    target = await startTarget({ pageCap: 25 });
    await startBridge();
    ldap = await dc.client();
    expect(await sync()).toMatchObject({ state: 'completed' });
    for (const name of ['later1', 'later2', 'later3']) await addPerson(ldap, name);
    await expect.poll(() => userByName('later3')?.active, { timeout: 30_000, interval: 200 }).toBe(true);

    // A plain copy keeps the invocationId (as a clone does): only its USNs say it is the past.
    await ldap.unbind();
    await dc.restore(backup);
    ldap = await dc.client();
    await expect
      .poll(() => ['later1', 'later2', 'later3'].map((name) => userByName(name)?.active), {
        timeout: 60_000,
        interval: 200,
      })
      .toEqual([false, false, false]);
    expect(untrustedReasons()).toEqual([
      expect.stringMatching(/highestCommittedUSN went back from \d+ to \d+/),
    ]);
  }, 240_000);
});

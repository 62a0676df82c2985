import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ldapts';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { ProvisionResult } from '../../src/admin/schemas/provision.schema.js';
import { guidString } from '../../src/sources/directory/ldap/ldap-values.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { adSourceEnv } from '../support/ldap-directory.js';
import { uniquePrefix } from '../support/redis.js';
import { provisionSambaDc, type SambaDc, type SambaTemplate } from '../support/samba-dc.js';

// Real: a Samba Active Directory domain controller (test/support/samba-dc.ts: provisioned and
// seeded once, one copy started for the file), the bridge (main.ts wiring: admin API, Redis,
// BullMQ workers, the ldap source with the active-directory preset, under a scope by membership
// of a group that holds another group), the reference target over HTTP. What is checked: a user
// in a group nested in the scope's group is in scope — in a full sync and on demand; provisioning
// one AD user, found by its objectGUID, as a dry run (look-ups only, nothing written) and for real
// (that user's requests alone); a user outside the group is reported out of scope.
const ADMIN = 'admin-token-for-provision-ad';
const auth = { Authorization: `Bearer ${ADMIN}` };
const ACCOUNT_ENABLED = '544'; // NORMAL_ACCOUNT | PASSWD_NOTREQD
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let template: SambaTemplate;
let dc: SambaDc;
let base: string;
let domain: string;
let dir: string;
const guids = new Map<string, string>();
const ou = (name: string) => `OU=${name},${base}`;
const personDn = (name: string) => `CN=${name},${ou('Staff')}`;
const groupDn = (cn: string) => `CN=${cn},${ou('Groups')}`;
const scope = () => `memberOf("${groupDn('Platform Users')}")`;

async function seed(ldap: Client): Promise<void> {
  for (const name of ['Staff', 'Groups'])
    await ldap.add(ou(name), { objectClass: 'organizationalUnit', ou: name });
  for (const name of ['alice', 'bob', 'carol'])
    await ldap.add(personDn(name), {
      objectClass: 'user',
      sAMAccountName: name,
      userPrincipalName: `${name}@${domain}`,
      givenName: name,
      sn: 'Example',
      mail: `${name}@${domain}`,
      userAccountControl: ACCOUNT_ENABLED,
    });
  // alice is in Analysts, which is in Platform Users; bob is in Platform Users; carol in neither.
  await ldap.add(groupDn('Analysts'), {
    objectClass: 'group',
    sAMAccountName: 'analysts',
    member: [personDn('alice')],
  });
  await ldap.add(groupDn('Platform Users'), {
    objectClass: 'group',
    sAMAccountName: 'platform-users',
    member: [personDn('bob'), groupDn('Analysts')],
  });
}

beforeAll(async () => {
  template = await provisionSambaDc();
  base = template.baseDn;
  domain = template.realm.toLowerCase();
  await template.seed(async (seeding) => {
    const ldap = await seeding.client();
    try {
      await seed(ldap);
    } finally {
      await ldap.unbind();
    }
  });
  dc = await template.start();
  const ldap = await dc.client();
  try {
    const { searchEntries } = await ldap.search(base, {
      filter: '(|(objectClass=user)(objectClass=group))',
      attributes: ['objectGUID'],
      explicitBufferAttributes: ['objectGUID'],
    });
    for (const entry of searchEntries)
      guids.set(entry.dn.toLowerCase(), guidString(entry.objectGUID as Buffer));
  } finally {
    await ldap.unbind();
  }
  dir = mkdtempSync(join(tmpdir(), 'scim-bridge-provision-ad-'));
  writeFileSync(join(dir, 'config.yaml'), `directory:\n  scope:\n    users: '${scope()}'\n`);
}, 300_000);

afterAll(async () => {
  await dc?.stop();
  template?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('provision on demand from Active Directory (Samba AD DC)', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;

  afterEach(async () => {
    await engine?.close();
    await target?.close();
  });

  async function start(): Promise<void> {
    target = await startTarget({ pageCap: 100 });
    engine = await startEngine(target, {
      CONFIG_FILE: join(dir, 'config.yaml'),
      KEY_PREFIX: uniquePrefix(),
      ADMIN_TOKEN: ADMIN,
      ...adSourceEnv(dc, { userBase: ou('Staff'), groupBase: ou('Groups') }),
    });
  }
  const http = () => request(engine.bridge.http.server);
  const guid = (dn: string) => guids.get(dn.toLowerCase()) ?? '';
  const provision = async (key: string, body: object = {}) =>
    ProvisionResult.parse(
      (
        await http()
          .post(`/admin/identities/users/${encodeURIComponent(key)}/provision`)
          .set(auth)
          .send(body)
          .expect((res) => {
            if (res.status !== 200) throw new Error(JSON.stringify(res.body));
          })
      ).body,
    );
  const writesSince = (from: number) =>
    target
      .stats()
      .requests.slice(from)
      .filter((r) => WRITES.has(r.method))
      .map((r) => `${r.method} ${r.route}`);

  it('a full sync scoped by group membership takes the members of nested groups', async () => {
    await start();
    const { jobId } = (await http().post('/admin/sync').set(auth).send({}).expect(202)).body as {
      jobId: string;
    };
    await expect
      .poll(async () => (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body.state, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe('completed');
    await engine.drain();
    expect(
      target
        .users()
        .map((u) => u.userName)
        .sort(),
    ).toEqual([`alice@${domain}`, `bob@${domain}`]);
    const members = (cn: string) => (target.groups().find((g) => g.displayName === cn)?.members ?? []).length;
    expect([members('Platform Users'), members('Analysts')]).toEqual([2, 1]);
  });

  it('provisions one AD user by its objectGUID: a dry run, then for real; a user outside the group is out of scope', async () => {
    await start();
    const alice = guid(personDn('alice'));
    expect(alice).toMatch(/^[0-9a-f]{8}-/);
    const { redis, keys } = engine.bridge.store;
    const stateKeys = async () =>
      (await redis.keys(`${keys.prefix}*`)).filter((k) => !k.startsWith(`${keys.queuePrefix()}:`)).sort();
    const keysBefore = await stateKeys();

    const dry = await provision(alice, { dryRun: true });
    expect(dry.steps.read).toMatchObject({ found: true, id: alice, label: personDn('alice') });
    // alice is in Analysts, nested in Platform Users: in scope.
    expect(dry.steps.scope).toMatchObject({ outcome: 'in-scope', expression: scope() });
    expect(dry.steps.mapping).toMatchObject({
      outcome: 'mapped',
      identity: {
        id: alice,
        userName: `alice@${domain}`,
        active: true,
        name: { givenName: 'alice', familyName: 'Example' },
      },
    });
    expect(dry.steps.match.outcome).toBe('none');
    expect(dry.steps.action.action).toBe('create');
    expect(target.stats().requests.map((r) => `${r.method} ${r.route}`)).toEqual([
      'GET /Users',
      'GET /Users',
    ]);
    expect(await stateKeys()).toEqual(keysBefore);

    const from = target.stats().requests.length;
    const real = await provision(alice);
    expect(real.steps.applied).toMatchObject({
      state: 'converged',
      identities: [{ id: alice, write: 'created', result: 'created' }],
    });
    expect(writesSince(from)).toEqual(['POST /Users']);
    expect(target.users().map((u) => [u.userName, u.externalId])).toEqual([[`alice@${domain}`, alice]]);

    const carol = await provision(personDn('carol'));
    expect(carol.steps.read.id).toBe(guid(personDn('carol')));
    expect(carol.steps.scope).toMatchObject({
      outcome: 'out-of-scope',
      reason: 'directory.scope.users is false for it',
    });
    expect(carol.steps.applied?.state).toBe('not-applied');
    expect(target.users()).toHaveLength(1);
  });
});

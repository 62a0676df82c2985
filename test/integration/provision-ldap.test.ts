import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { ProvisionResult } from '../../src/admin/schemas/provision.schema.js';
import { AdminClient } from '../../src/cli/admin-client.js';
import { provisionCommand } from '../../src/cli/provision.command.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { ldapChange, ldapSourceEnv, range, testDirectory } from '../support/ldap-directory.js';
import { uniquePrefix } from '../support/redis.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

// Real: slapd (test/support/slapd.ts, one for the file), the bridge (main.ts wiring: admin API,
// Redis, BullMQ workers, the ldap source under a scope by group membership and a userName mapping
// from a CONFIG_FILE), the reference target over HTTP, whose request log tells what reached the
// platform. What is checked: provisioning one user on demand — a dry run shows each step and
// writes nothing (look-ups only), the real one sends that user's requests and nothing else; a
// user out of scope is reported with its reason and not applied; a group is provisioned with its
// members, nested ones included; an update shows its attribute diff; bad requests change nothing.
const SUFFIX = 'dc=example,dc=com';
const ADMIN = 'admin-token-for-provision-ldap';
const auth = { Authorization: `Bearer ${ADMIN}` };
const { person, dnOf, groupDn } = testDirectory(SUFFIX);
const SCOPE = `memberOf("${groupDn('eng')}")`;
const USER_NAME = 'uid + "@corp.example.com"';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** eng: p01–p10 and the nested group platform (p11–p20); all: eng and p21–p30; p31–p40 in none. */
function directoryLdif(): string {
  const extra = [`dn: cn=printer,ou=people,${SUFFIX}\nobjectClass: device\ncn: printer\n`];
  return testDirectory(SUFFIX).ldif(
    40,
    [
      ['platform', range(11, 20).map(dnOf)],
      ['eng', [...range(1, 10).map(dnOf), groupDn('platform')]],
      ['all', [groupDn('eng'), ...range(21, 30).map(dnOf)]],
    ],
    extra,
  );
}

describe('provision on demand from an LDAP directory', () => {
  let dir: string;
  let slapd: Slapd;
  let ldap: Client;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  const uuids = new Map<string, string>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-provision-'));
    writeFileSync(join(dir, 'directory.ldif'), directoryLdif());
    slapd = await startSlapd({ suffix: SUFFIX, ldif: [join(dir, 'directory.ldif')] });
    ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
    const { searchEntries } = await ldap.search(SUFFIX, {
      filter: '(objectClass=*)',
      attributes: ['entryUUID'],
    });
    for (const entry of searchEntries) uuids.set(entry.dn.toLowerCase(), String(entry.entryUUID));
    writeFileSync(
      join(dir, 'config.yaml'),
      `directory:\n  scope:\n    users: '${SCOPE}'\n  mapping:\n    users:\n      userName: '${USER_NAME}'\n`,
    );
  });
  afterAll(async () => {
    await ldap?.unbind();
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
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
      ...ldapSourceEnv(slapd, SUFFIX),
    });
  }
  const uuid = (dn: string) => uuids.get(dn.toLowerCase()) ?? '';
  const provision = async (kind: 'users' | 'groups', key: string, body: object = {}, status = 200) => {
    const res = await request(engine.bridge.http.server)
      .post(`/admin/identities/${kind}/${encodeURIComponent(key)}/provision`)
      .set(auth)
      .send(body)
      .expect(status);
    return res.body as ProvisionResult & { error?: { code: string; message: string; problems?: string[] } };
  };
  /** The requests the platform received since `from`, as `METHOD route`. */
  const requestsSince = (from: number) =>
    target
      .stats()
      .requests.slice(from)
      .map((r) => `${r.method} ${r.route}`);
  const writesSince = (from: number) => requestsSince(from).filter((r) => WRITES.has(r.split(' ')[0] ?? ''));
  /** The bridge's own keys (its queues aside): desired state, reconcile state, marks, indexes. */
  const stateKeys = async () => {
    const { redis, keys } = engine.bridge.store;
    const found = await redis.keys(`${keys.prefix}*`);
    return found.filter((key) => !key.startsWith(`${keys.queuePrefix()}:`)).sort();
  };

  it('shows each step of a dry run and writes nothing; the real one sends that user’s requests alone', async () => {
    await start();
    const id = uuid(dnOf(5));
    const keysBefore = await stateKeys();
    const dry = ProvisionResult.parse(await provision('users', id, { dryRun: true }));
    expect(dry).toMatchObject({ input: 'directory:directory', kind: 'user', key: id, dryRun: true });
    expect(dry.steps.read).toMatchObject({ found: true, id, label: dnOf(5) });
    expect(dry.steps.scope).toEqual({
      outcome: 'in-scope',
      reason: 'directory.scope.users is true for it',
      setting: 'directory.scope.users',
      expression: SCOPE,
    });
    expect(dry.steps.mapping).toMatchObject({
      outcome: 'mapped',
      identity: {
        id,
        userName: 'p05@corp.example.com',
        emails: [{ value: 'p05@example.com', primary: true }],
      },
      expressions: [
        { attribute: 'userName', setting: 'directory.mapping.users.userName', expression: USER_NAME },
      ],
    });
    expect(dry.steps.match).toMatchObject({ outcome: 'none', managed: false });
    expect(dry.steps.action).toMatchObject({ action: 'create' });
    expect(dry.steps.action.changes).toContainEqual({
      attribute: 'userName',
      before: null,
      after: 'p05@corp.example.com',
    });
    expect(dry.steps.applied).toBeUndefined();
    // Look-ups only (by externalId, by userName); nothing in Redis.
    expect(requestsSince(0)).toEqual(['GET /Users', 'GET /Users']);
    expect(await stateKeys()).toEqual(keysBefore);
    expect(target.users()).toHaveLength(0);

    const before = target.stats().requests.length;
    const real = ProvisionResult.parse(await provision('users', id));
    expect(real.steps.action.action).toBe('create');
    expect(real.steps.applied).toMatchObject({
      state: 'converged',
      total: 1,
      identities: [{ kind: 'user', id, write: 'created', result: 'created' }],
    });
    expect(writesSince(before)).toEqual(['POST /Users']);
    expect(target.users().map((u) => [u.userName, u.externalId])).toEqual([['p05@corp.example.com', id]]);
    expect(target.groups()).toHaveLength(0);

    // Again: it already matches; a run checks the platform and writes nothing.
    const again = before + requestsSince(before).length;
    const twice = ProvisionResult.parse(await provision('users', dnOf(5)));
    expect(twice.steps.match).toMatchObject({ outcome: 'matched', by: 'targetId', managed: true });
    expect(twice.steps.action).toMatchObject({ action: 'none', changes: [] });
    expect(twice.steps.applied).toMatchObject({
      state: 'converged',
      identities: [{ write: 'unchanged', result: 'unchanged' }],
    });
    expect(writesSince(again)).toEqual([]);
  });

  it('reports a user out of scope with its reason and applies nothing; refuses what it cannot read', async () => {
    await start();
    const keysBefore = await stateKeys();
    const out = ProvisionResult.parse(await provision('users', uuid(dnOf(35))));
    expect(out.steps.scope).toMatchObject({
      outcome: 'out-of-scope',
      reason: 'directory.scope.users is false for it',
      expression: SCOPE,
    });
    expect(out.steps.mapping).toMatchObject({ outcome: 'skipped' });
    expect(out.steps.match.outcome).toBe('not-looked-up');
    expect(out.steps.action.action).toBe('none');
    expect(out.steps.applied).toMatchObject({ state: 'not-applied', total: 0 });
    expect(out.steps.applied?.reason).toContain('directory.scope.users is false for it');
    // An entry under the base that the user filter leaves out, named by its DN.
    const printer = ProvisionResult.parse(
      await provision('users', `cn=printer,ou=people,${SUFFIX}`, { dryRun: true }),
    );
    expect(printer.steps.scope).toEqual({
      outcome: 'out-of-scope',
      reason: 'not matched by directory.ldap.userFilter (objectClass=inetOrgPerson)',
    });

    const missing = await provision('users', '00000000-0000-4000-8000-000000000000', {}, 404);
    expect(missing.error).toMatchObject({ code: 'not_found' });
    expect(missing.error?.message).toContain(
      'no entry with entryUUID 00000000-0000-4000-8000-000000000000 under ou=people',
    );
    const elsewhere = await provision('users', `uid=x,ou=elsewhere,${SUFFIX}`, {}, 404);
    expect(elsewhere.error?.message).toContain('is not under ou=people,dc=example,dc=com');
    const badBody = await provision('users', uuid(dnOf(5)), { dryRun: 'yes', extra: 1 }, 400);
    expect(badBody.error?.problems).toEqual(expect.arrayContaining(['dryRun: not true or false']));
    const badInput = await provision('users', uuid(dnOf(5)), { input: 'okta' }, 400);
    expect(badInput.error?.message).toBe(
      'The input "okta" cannot be read one identity at a time (those that can: directory:directory)',
    );
    await request(engine.bridge.http.server)
      .post(`/admin/identities/robots/x/provision`)
      .set(auth)
      .send({})
      .expect(400);
    await request(engine.bridge.http.server).post(`/admin/identities/users/x/provision`).send({}).expect(401);
    expect(target.stats().requests.filter((r) => WRITES.has(r.method))).toEqual([]);
    expect(await stateKeys()).toEqual(keysBefore);
  });

  it('provisions a group with its members, nested ones included, members first', async () => {
    await start();
    const eng = uuid(groupDn('eng'));
    const dry = ProvisionResult.parse(await provision('groups', eng, { dryRun: true }));
    expect(dry.steps.members).toMatchObject({ total: 20, inScope: 20, outOfScope: 0, unmappable: 0 });
    expect(dry.steps.mapping).toMatchObject({ outcome: 'mapped', identity: { id: eng, displayName: 'eng' } });
    expect(dry.steps.action).toMatchObject({
      action: 'create',
      members: { add: 0, remove: 0, provisionFirst: 20 },
    });
    expect(target.stats().requests.filter((r) => WRITES.has(r.method))).toEqual([]);

    const real = ProvisionResult.parse(await provision('groups', eng));
    expect(real.steps.applied).toMatchObject({ state: 'converged', total: 21 });
    expect(real.steps.applied?.identities[0]).toMatchObject({
      kind: 'group',
      id: eng,
      write: 'created',
      result: 'created',
    });
    const writes = writesSince(0);
    expect(writes.filter((w) => w === 'POST /Users')).toHaveLength(20);
    expect(writes.filter((w) => w !== 'POST /Users')).toEqual(['POST /Groups']);
    const names = target
      .users()
      .map((u) => u.userName)
      .sort();
    expect(names).toEqual(range(1, 20).map((n) => `${person(n)}@corp.example.com`));
    expect(target.groups().map((g) => [g.displayName, g.members?.length])).toEqual([['eng', 20]]);

    // `all` holds eng (nested) and p21–p30, whom the scope leaves out; its kept members exist already.
    const from = target.stats().requests.length;
    const all = ProvisionResult.parse(await provision('groups', groupDn('all')));
    expect(all.steps.members).toMatchObject({ total: 30, inScope: 20, outOfScope: 10 });
    expect(all.steps.members?.items.find((m) => m.label === dnOf(25))).toMatchObject({
      outcome: 'out-of-scope',
      reason: 'directory.scope.users is false for it',
    });
    expect(all.steps.action).toMatchObject({ action: 'create', members: { add: 20, provisionFirst: 0 } });
    expect(all.steps.applied?.state).toBe('converged');
    expect(writesSince(from)).toEqual(['POST /Groups']);
    expect(target.groups().find((g) => g.displayName === 'all')?.members).toHaveLength(20);
  });

  it('shows an update as its attribute diff, and a removal the next sync would make', async () => {
    await start();
    const id = uuid(dnOf(8));
    await provision('users', id);
    await ldap.modify(dnOf(8), ldapChange('replace', 'sn', 'Changed'));
    try {
      const dry = ProvisionResult.parse(await provision('users', id, { dryRun: true }));
      expect(dry.steps.action).toMatchObject({
        action: 'update',
        changes: [{ attribute: 'name', before: { familyName: 'Number8' }, after: { familyName: 'Changed' } }],
      });
      const from = target.stats().requests.length;
      const real = ProvisionResult.parse(await provision('users', id));
      expect(real.steps.applied).toMatchObject({
        state: 'converged',
        identities: [{ write: 'updated', result: 'updated' }],
      });
      expect(writesSince(from)).toEqual(['PATCH /Users/:id']);
      expect(target.users()[0]?.name).toMatchObject({ familyName: 'Changed' });

      // p08 leaves eng: out of scope now, and the bridge manages it — the next full sync removes it.
      await ldap.modify(groupDn('eng'), ldapChange('delete', 'member', dnOf(8)));
      const gone = ProvisionResult.parse(await provision('users', id));
      expect(gone.steps.action.action).toBe('remove-would-happen');
      expect(gone.steps.action.reason).toContain('the next full sync of directory:directory removes it');
      expect(gone.steps.match).toMatchObject({ outcome: 'not-looked-up', managed: true });
      expect(gone.steps.applied?.state).toBe('not-applied');
      expect(target.users()[0]?.active).toBe(true);
    } finally {
      await ldap.modify(dnOf(8), ldapChange('replace', 'sn', 'Number8'));
      await ldap.modify(groupDn('eng'), ldapChange('add', 'member', dnOf(8))).catch(() => undefined);
    }
  });

  it('prints the steps on the command line (scim-bridge provision)', async () => {
    await start();
    const output: string[] = [];
    const client = new AdminClient({ url: engine.bridge.http.url, token: ADMIN });
    const code = await provisionCommand({ client, write: (t) => output.push(t) }, 'user', uuid(dnOf(3)), {
      dryRun: true,
    });
    expect(code).toBe(0);
    const text = output.join('\n');
    expect(text).toContain(
      `Provision user ${uuid(dnOf(3))} from directory:directory (dry run: nothing written)`,
    );
    expect(text).toMatch(/scope\s+in-scope: directory.scope.users is true for it\n\s+memberOf/);
    expect(text).toContain(`userName ← ${USER_NAME} (directory.mapping.users.userName)`);
    expect(text).toMatch(/action\s+create: no platform user matches: it is created/);
    expect(text).toContain('userName: null → "p03@corp.example.com"');
    const out = await provisionCommand({ client, write: (t) => output.push(t) }, 'user', uuid(dnOf(33)), {});
    expect(out).toBe(1);
  });
});

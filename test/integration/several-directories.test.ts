import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attribute, Client } from 'ldapts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { testDirectory } from '../support/ldap-directory.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

// Real: slapd (accesslog overlay), a directory file, the bridge (main.ts wiring, each directory an
// input of its own: `directory` from the environment, `directories:` from the config file), the
// reference target over HTTP. What is checked (SPEC §3, §6): two directories each sync their own
// identities, neither's full sync removes the other's, and one held for approval delays nothing of
// the other's — its full syncs nor its deltas.
const SUFFIX = 'dc=example,dc=com';
const ADMIN = 'admin-token-several-directories';
const auth = { Authorization: `Bearer ${ADMIN}` };
const { dnOf, ldif } = testDirectory(SUFFIX);

describe('several directories at once', () => {
  let dir: string;
  let slapd: Slapd;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let ldap: Client;
  const file = (users: string[]) =>
    writeFileSync(
      join(dir, 'hr.json'),
      JSON.stringify({
        users: users.map((u) => ({ id: u, userName: `${u}@hr.example`, active: true })),
        groups: [],
      }),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-directories-'));
    writeFileSync(join(dir, 'corp.ldif'), ldif(3, [['staff', [dnOf(1), dnOf(2)]]]));
    slapd = await startSlapd({ suffix: SUFFIX, ldif: [join(dir, 'corp.ldif')] });
    file(['h1', 'h2', 'h3', 'h4']);
    const config = join(dir, 'bridge.yaml');
    writeFileSync(
      config,
      [
        'directories:',
        '  - name: corp',
        '    source: ldap',
        '    deltaSeconds: 1',
        '    ldap:',
        `      url: ${slapd.url}`,
        `      bindDn: ${slapd.rootDn}`,
        `      bindPassword: ${slapd.rootPassword}`,
        `      userBase: ou=people,${SUFFIX}`,
        `      groupBase: ou=groups,${SUFFIX}`,
        '',
      ].join('\n'),
    );
    target = await startTarget();
    engine = await startEngine(target, {
      ADMIN_TOKEN: ADMIN,
      CONFIG_FILE: config,
      DIRECTORY_NAME: 'hr',
      DIRECTORY_SOURCE: 'file',
      DIRECTORY_FILE: join(dir, 'hr.json'),
      DIRECTORY_DELTA_SECONDS: '0',
      DEPROVISION_LIMIT: '1',
    });
    ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
  });
  afterAll(async () => {
    await ldap?.unbind().catch(() => undefined);
    await engine?.close();
    await target?.close();
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const http = () => request(engine.bridge.http.server);
  const sync = async (input: string) =>
    (await http().post('/admin/sync').set(auth).send({ input }).expect(202)).body.jobId as string;
  const settled = async (jobId: string) => {
    let state = '';
    await expect
      .poll(
        async () => {
          state = (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body.state as string;
          return ['completed', 'failed', 'awaiting-approval'].includes(state);
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBe(true);
    return state;
  };
  const active = (userName: string) => target.findUserByUserName(userName)?.active;

  it("syncs each directory's own identities; neither's full sync removes the other's", async () => {
    expect(await settled(await sync('directory:hr'))).toBe('completed');
    expect(await settled(await sync('directory:corp'))).toBe('completed');
    await engine.drain();
    expect(['h1', 'h2', 'h3', 'h4'].map((u) => active(`${u}@hr.example`))).toEqual([true, true, true, true]);
    expect(['p01', 'p02', 'p03'].map((u) => active(`${u}@example.com`))).toEqual([true, true, true]);
    expect(target.findGroupByDisplayName('staff')?.members).toHaveLength(2);

    // Each full sync again: the other directory's identities are left alone, not deprovisioned.
    expect(await settled(await sync('directory:hr'))).toBe('completed');
    expect(await settled(await sync('directory:corp'))).toBe('completed');
    await engine.drain();
    expect(active('p01@example.com')).toBe(true);
    expect(active('h1@hr.example')).toBe(true);
    const owners = (await http().get('/admin/status').set(auth).expect(200)).body.owners;
    expect(owners).toMatchObject({ 'directory:hr': { users: 4 }, 'directory:corp': { users: 3, groups: 1 } });
  });

  it("holds one directory's removals and still carries the other's changes to the platform", async () => {
    file(['h1']);
    const held = await sync('directory:hr');
    expect(await settled(held)).toBe('awaiting-approval');

    // While hr's sync is held: corp's deltas and its full syncs go on.
    await ldap.add(`uid=p09,ou=people,${SUFFIX}`, [
      new Attribute({ type: 'objectClass', values: ['inetOrgPerson'] }),
      new Attribute({ type: 'uid', values: ['p09'] }),
      new Attribute({ type: 'cn', values: ['Person 9'] }),
      new Attribute({ type: 'sn', values: ['Number9'] }),
      new Attribute({ type: 'mail', values: ['p09@example.com'] }),
    ]);
    await expect.poll(() => active('p09@example.com'), { timeout: 20_000 }).toBe(true);
    expect(await settled(await sync('directory:corp'))).toBe('completed');
    expect((await http().get(`/admin/sync/${held}`).set(auth).expect(200)).body.state).toBe(
      'awaiting-approval',
    );
    expect(active('h2@hr.example')).toBe(true);
  });
});

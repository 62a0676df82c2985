import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { sectionOf } from '../../src/config/catalog.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/schema.js';
import { isBridgeError, type BridgeError } from '../../src/domain/errors.js';
import type { DesiredGroup, Snapshot } from '../../src/domain/identity.js';
import { freePort } from '../../src/ops/embedded-redis.js';
import { resolveMapping } from '../../src/sources/directory/ldap/ldap-attribute-map.js';
import { withLdapReader } from '../../src/sources/directory/ldap/ldap-delta-session.js';
import { dnKey } from '../../src/sources/directory/ldap/ldap-dn.js';
import { LdapGroupEdges } from '../../src/sources/directory/ldap/ldap-group-edges.js';
import { ldapSettings } from '../../src/sources/directory/ldap/ldap.settings.js';
import { buildDirectorySource as createDirectorySource, CATALOG } from '../../src/sources/registry.js';
import { logSink } from '../support/log-sink.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

/**
 * The ldap source against a real slapd (test/support/slapd.ts) holding an OpenLDAP-style directory
 * (test/fixtures/ldap/openldap.ldif). Real: slapd, TLS, the config loader. Nothing is faked.
 */

const BIND_DN = 'cn=bridge,ou=service,dc=example,dc=com';
const BIND_PASSWORD = 'bridge-Secret-9c1d';
const ID = (n: string) => `0b6b8c1e-2f1a-4c3d-9e8f-${n.padStart(12, '0')}`;

let slapd: Slapd;

beforeAll(async () => {
  slapd = await startSlapd({
    suffix: 'dc=example,dc=com',
    ldif: ['openldap.ldif'],
    // Like a server with a small size limit: only a paged search reads every entry.
    databaseConfig: [`limits dn.exact="${BIND_DN}" size.soft=3 size.hard=3 size.pr=3 size.prtotal=unlimited`],
  });
});

afterAll(async () => {
  await slapd?.stop();
});

/** The directory settings as loadConfig builds them from the environment and a config file. */
function directoryConfig(
  ldap: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Config['directory'] {
  const file = stringify({ directory: { ldap: { pageSize: 2, timeoutSeconds: 5, ...ldap } } });
  const config = loadConfig(
    {
      REDIS_URL: 'redis://127.0.0.1:9',
      TARGET_URL: 'http://127.0.0.1:9',
      TARGET_TOKEN: 'test-target-token-0001',
      DIRECTORY_SOURCE: 'ldap',
      LDAP_URL: slapd.url,
      LDAP_BIND_DN: BIND_DN,
      LDAP_BIND_PASSWORD: BIND_PASSWORD,
      LDAP_USER_BASE: 'ou=people,dc=example,dc=com',
      LDAP_GROUP_BASE: 'ou=groups,dc=example,dc=com',
      CONFIG_FILE: 'test-config.yaml',
      ...env,
    },
    CATALOG,
    { readFile: (path) => (path === 'test-config.yaml' ? file : readFileSync(path, 'utf8')) },
  );
  return config.directory;
}

async function read(ldap: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<Snapshot> {
  const source = createDirectorySource(directoryConfig(ldap, env));
  if (source === undefined) throw new Error('no source');
  return source.read();
}

async function readError(
  ldap: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<BridgeError> {
  const error: unknown = await read(ldap, env).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

function members(snapshot: Snapshot, displayName: string): string[] {
  const group = snapshot.groups.find((g: DesiredGroup) => g.displayName === displayName);
  return [...(group?.members ?? [])].sort();
}

describe('ldap source, OpenLDAP preset', () => {
  it('maps inetOrgPerson users by entryUUID, mail (or uid), givenName, sn and every mail', async () => {
    const snapshot = await read();
    expect(snapshot.users).toHaveLength(5);
    const byId = new Map(snapshot.users.map((u) => [u.id, u]));
    expect(byId.get(ID('1'))).toEqual({
      id: ID('1'),
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      active: true,
    });
    expect(byId.get(ID('2'))?.emails).toEqual([
      { value: 'grace@example.com', type: 'work', primary: true },
      { value: 'grace.hopper@example.com', type: 'work' },
    ]);
    expect(byId.get(ID('3'))).toMatchObject({
      userName: 'zoe+it@example.com',
      name: { givenName: 'Zoë', familyName: 'Ångström' },
    });
    expect(byId.get(ID('4'))?.userName).toBe('conan.obrien@example.com');
    expect(byId.get(ID('5'))).toMatchObject({ userName: 'nomail', name: { familyName: 'Mail' } });
    expect(byId.has(ID('6'))).toBe(false); // ou=contractors is outside the user base
  });

  it('resolves member DNs however they are spelled, flattens nested groups and drops outsiders', async () => {
    const snapshot = await read();
    expect(snapshot.groups.map((g) => g.id).sort()).toEqual([ID('a1'), ID('a2'), ID('a3')]);
    // engineering ⊃ platform ⊃ engineering (a cycle); carl is outside the user base.
    const everyone = [ID('1'), ID('2'), ID('3'), ID('4')].sort();
    expect(members(snapshot, 'engineering')).toEqual(everyone);
    expect(members(snapshot, 'platform')).toEqual(everyone);
    // groupOfUniqueNames, with an optional #'…'B uid and a DN in other letter case.
    expect(members(snapshot, 'designers')).toEqual([ID('3'), ID('5')]);
  });

  it('reads past the server size limit with paged searches, whatever the page size below it', async () => {
    for (const pageSize of [1, 3]) {
      const snapshot = await read({ pageSize });
      expect(snapshot.users).toHaveLength(5);
    }
  });

  it('takes attribute overrides, including fallbacks, and leaves out entries without an id', async () => {
    const sink = logSink();
    const source = createDirectorySource(
      directoryConfig({
        userAttributes: { id: 'employeeNumber', userName: 'uid', 'name.givenName': 'cn' },
        groupAttributes: { id: 'cn', externalId: 'description' },
      }),
      { logger: sink.logger },
    );
    const snapshot = await source!.read();
    expect(snapshot.users.map((u) => [u.id, u.userName, u.name?.givenName]).sort()).toEqual([
      ['E-1001', 'ada', 'Ada Lovelace'],
      ['E-1002', 'grace', 'Grace Hopper'],
      ['E-1003', 'zoe', 'Zoë Ångström'],
      ['E-1004', 'obrien', "O'Brien, Conan"],
    ]);
    expect(members(snapshot, 'designers')).toEqual(['E-1003']);
    expect(snapshot.groups.find((g) => g.id === 'platform')?.externalId).toMatch(/^Zoë, and Engineering/);
    const warning = sink.lines().find((line) => line.level === 40);
    expect(warning).toMatchObject({ count: 1, examples: ['uid=nomail,ou=people,dc=example,dc=com'] });
  });

  it('names entries by DN when the directory breaks the snapshot rules', async () => {
    // objectClass as the userName: every person has the same one.
    const error = await readError({ userAttributes: { userName: 'objectClass' } });
    expect(error.code).toBe('source_invalid');
    expect(error.problems).toContain(
      'users["uid=grace,ou=people,dc=example,dc=com"].userName: duplicate of users["uid=ada,ou=people,dc=example,dc=com"] (case-insensitive)',
    );
  });

  it('refuses an attribute mapping that names no SCIM attribute, at creation', () => {
    expect(() => createDirectorySource(directoryConfig({ userAttributes: { nickName: 'cn' } }))).toThrow(
      /directory\.ldap\.userAttributes\.nickName: not a mapped attribute/,
    );
  });
});

describe('ldap group edges, as delta reads walk them', () => {
  it('finds the groups that hold a group, each under the group it lists, and flattens them, cycles cut', async () => {
    const settings = sectionOf(ldapSettings, directoryConfig());
    const scope = {
      mapping: resolveMapping(settings),
      userBase: settings.userBase,
      groupBase: settings.groupBase,
      dnAttribute: 'entryDN',
    };
    const engineering = 'cn=engineering,ou=groups,dc=example,dc=com';
    const platform = 'cn=platform,ou=groups,dc=example,dc=com';
    await withLdapReader(settings, undefined, async (reader) => {
      const edges = new LdapGroupEdges(reader, scope);
      // engineering ⊃ platform ⊃ engineering: up from platform, the walk ends at engineering.
      const holders = await edges.holding([platform]);
      expect(holders.map((entry) => entry.dn)).toEqual([engineering]);
      // One search for both: each holder is given under the group it lists, not under both.
      const parents = await edges.parents([dnKey(engineering), dnKey(platform)]);
      expect(Object.fromEntries(parents)).toEqual({
        [dnKey(engineering)]: [dnKey(platform)],
        [dnKey(platform)]: [dnKey(engineering)],
      });
      const [flattened] = await edges.flattened(holders);
      expect(flattened?.item.id).toBe(ID('a1'));
      expect([...(flattened?.item.members ?? [])].sort()).toEqual(
        [ID('1'), ID('2'), ID('3'), ID('4')].sort(),
      );
    });
  });
});

describe('ldap source, TLS', () => {
  it('reads over ldaps:// with the CA given', async () => {
    const snapshot = await read({ caFile: slapd.caFile }, { LDAP_URL: slapd.ldapsUrl });
    expect(snapshot.users).toHaveLength(5);
  });

  it('reads over ldap:// upgraded with StartTLS', async () => {
    const snapshot = await read({ caFile: slapd.caFile, startTls: true });
    expect(snapshot.users).toHaveLength(5);
  });

  it('refuses a certificate it cannot verify, unless told not to verify', async () => {
    const error = await readError({}, { LDAP_URL: slapd.ldapsUrl });
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: false });
    expect(error.message).toMatch(/certificate was not accepted .*directory\.ldap\.caFile/);
    const startTls = await readError({ startTls: true });
    expect(startTls.message).toMatch(
      /^LDAP StartTLS at ldap:\/\/127\.0\.0\.1:\d+ failed: the server's certificate/,
    );
    const snapshot = await read({ rejectUnauthorized: false }, { LDAP_URL: slapd.ldapsUrl });
    expect(snapshot.users).toHaveLength(5);
  });
});

describe('ldap source, failures', () => {
  it('reports a refused bind as refused credentials, without the password, not retryable', async () => {
    const password = 'Wrong-Password-7731';
    const error = await readError({}, { LDAP_BIND_PASSWORD: password });
    expect(error).toMatchObject({ code: 'source_unauthorized', retryable: false });
    expect(error.message).toBe(
      `LDAP bind at ${slapd.url} failed: the server refused the credentials of "${BIND_DN}"`,
    );
    expect(
      JSON.stringify({ message: error.message, stack: error.stack, cause: String(error.cause) }),
    ).not.toContain(password);
  });

  it('reports a server that is down as retryable', async () => {
    const port = await freePort();
    const error = await readError({}, { LDAP_URL: `ldap://127.0.0.1:${port}` });
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: true });
    expect(error.message).toMatch(
      new RegExp(`^LDAP connect at ldap://127\\.0\\.0\\.1:${port} failed: cannot connect \\(.*ECONNREFUSED`),
    );
  });

  it('gives up on a server that accepts connections but never answers, after the timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const started = Date.now();
      const error = await readError({ timeoutSeconds: 1 }, { LDAP_URL: `ldap://127.0.0.1:${port}` });
      expect(error).toMatchObject({ code: 'source_unavailable', retryable: true });
      expect(error.message).toMatch(/^LDAP bind at .* failed: .*timed out/i);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('names a base DN that does not exist', async () => {
    const error = await readError({}, { LDAP_USER_BASE: 'ou=nobody,dc=example,dc=com' });
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: false });
    expect(error.message).toContain('the base DN "ou=nobody,dc=example,dc=com" does not exist');
  });
});

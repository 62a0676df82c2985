import { readFileSync } from 'node:fs';
import { Client, SizeLimitExceededError } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/schema.js';
import type { Snapshot } from '../../src/domain/identity.js';
import { buildDirectorySource as createDirectorySource, CATALOG } from '../../src/sources/registry.js';
import { readRanged, readRemainingRanges } from '../../src/sources/directory/ldap/ldap-ranged-values.js';
import { EntryValues } from '../../src/sources/directory/ldap/ldap-values.js';
import { logSink } from '../support/log-sink.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

/**
 * The ldap source's Active Directory preset against a real slapd holding entries shaped like AD's
 * (test/fixtures/ldap/active-directory.schema and .ldif): binary objectGUIDs, userPrincipalName,
 * userAccountControl, upper-case DNs, nested groups with a cycle, and a server that returns at
 * most 5 entries per search, as AD returns at most 1,000.
 */

const BASE = 'DC=corp,DC=example';
const BIND_DN = `CN=svc-bridge,OU=Service,${BASE}`;
const BIND_PASSWORD = 'bridge-Secret-4fe1';

const ADA = 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6';
const GRACE = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const DAN = '1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f800';
const FAY = '1a2b3c4d-5e6f-7081-93a4-b5c6d7e8f901';
const JOSE = '1a2b3c4d-5e6f-7081-94a5-b6c7d8e9fa02';
/** Its 16 bytes are all ASCII: a GUID that also reads as valid UTF-8. */
const ZOE = '33323130-3534-3736-3839-616263646566';
const STAFF_07 = '1a2b3c4d-5e6f-7081-95a6-b7c8d9eafb03';
const STAFF_08 = '1a2b3c4d-5e6f-7081-96a7-b8c9daebfc04';

let slapd: Slapd;

beforeAll(async () => {
  slapd = await startSlapd({
    suffix: BASE,
    schemas: ['active-directory.schema'],
    ldif: ['active-directory.ldif'],
    databaseConfig: [`limits dn.exact="${BIND_DN}" size.soft=5 size.hard=5 size.pr=5 size.prtotal=unlimited`],
  });
});

afterAll(async () => {
  await slapd?.stop();
});

function directoryConfig(pageSize: number): Config['directory'] {
  const file = stringify({ directory: { ldap: { pageSize, timeoutSeconds: 5 } } });
  const config = loadConfig(
    {
      REDIS_URL: 'redis://127.0.0.1:9',
      TARGET_URL: 'http://127.0.0.1:9',
      TARGET_TOKEN: 'test-target-token-0001',
      DIRECTORY_SOURCE: 'ldap',
      LDAP_SCHEMA: 'active-directory',
      LDAP_URL: slapd.url,
      LDAP_BIND_DN: BIND_DN,
      LDAP_BIND_PASSWORD: BIND_PASSWORD,
      LDAP_USER_BASE: `OU=Staff,${BASE}`,
      LDAP_GROUP_BASE: `OU=Groups,${BASE}`,
      CONFIG_FILE: 'test-config.yaml',
    },
    CATALOG,
    { readFile: (path) => (path === 'test-config.yaml' ? file : readFileSync(path, 'utf8')) },
  );
  return config.directory;
}

async function read(pageSize = 2, logger = logSink().logger): Promise<Snapshot> {
  const source = createDirectorySource(directoryConfig(pageSize), { logger });
  if (source === undefined) throw new Error('no source');
  return source.read();
}

function members(snapshot: Snapshot, displayName: string): string[] {
  return [...(snapshot.groups.find((g) => g.displayName === displayName)?.members ?? [])].sort();
}

describe('ldap source, Active Directory preset', () => {
  it('needs paging: the server refuses a plain search of every user', async () => {
    const client = new Client({ url: slapd.url });
    try {
      await client.bind(BIND_DN, BIND_PASSWORD);
      await expect(
        client.search(`OU=Staff,${BASE}`, { filter: '(objectClass=user)' }),
      ).rejects.toBeInstanceOf(SizeLimitExceededError);
    } finally {
      await client.unbind();
    }
  });

  it('reads every user across pages of 2 and of 5, with objectGUIDs as canonical GUID strings', async () => {
    for (const pageSize of [2, 5]) {
      const snapshot = await read(pageSize);
      expect(snapshot.users.map((u) => u.id)).toHaveLength(12);
      expect(snapshot.users.find((u) => u.id === ADA)).toEqual({
        id: ADA,
        userName: 'ada@corp.example',
        name: { givenName: 'Ada', familyName: 'Lovelace' },
        emails: [{ value: 'ada.lovelace@corp.example', type: 'work', primary: true }],
        active: true,
      });
      expect(snapshot.users.find((u) => u.id === ZOE)).toMatchObject({
        userName: 'zoe@corp.example',
        name: { givenName: 'Zoë', familyName: 'Ångström' },
        emails: [{ value: 'zoe+it@corp.example' }],
      });
    }
  });

  it('marks accounts with the ACCOUNTDISABLE bit of userAccountControl inactive', async () => {
    const snapshot = await read();
    const active = Object.fromEntries(snapshot.users.map((u) => [u.id, u.active]));
    expect(active).toMatchObject({ [ADA]: true, [GRACE]: true, [DAN]: false, [FAY]: false, [JOSE]: true });
  });

  it('leaves out accounts without a userPrincipalName, with a warning naming them', async () => {
    const sink = logSink();
    const snapshot = await read(2, sink.logger);
    expect(snapshot.users.some((u) => u.userName.startsWith('noupn'))).toBe(false);
    // slapd answers DNs in its own spelling (cn=No UPN,ou=Staff,dc=corp,dc=example).
    const warning = sink.lines().find((line) => line.level === 40);
    expect(warning?.count).toBe(1);
    expect(String(warning?.examples).toLowerCase()).toBe(`cn=no upn,ou=staff,${BASE.toLowerCase()}`);
  });

  it('flattens nested groups, cycles included, and drops members outside the user base', async () => {
    const snapshot = await read();
    expect(snapshot.groups.map((g) => g.displayName).sort()).toEqual([
      'All Staff',
      'Engineering',
      'Platform',
      'Sales',
      'Sales Leads',
    ]);
    // All Staff ⊃ Engineering ⊃ Platform ⊃ All Staff, and All Staff ⊃ Sales.
    const cycle = [ADA, GRACE, DAN, JOSE, ZOE, STAFF_07, STAFF_08].sort();
    expect(members(snapshot, 'All Staff')).toEqual(cycle);
    expect(members(snapshot, 'Engineering')).toEqual(cycle);
    expect(members(snapshot, 'Platform')).toEqual(cycle);
    // Outside Olga is in OU=Partners; No UPN is left out.
    expect(members(snapshot, 'Sales')).toEqual([STAFF_07, STAFF_08].sort());
    expect(members(snapshot, 'Sales Leads')).toEqual([STAFF_07, STAFF_08].sort());
    expect(snapshot.groups.find((g) => g.displayName === 'Sales')?.id).toBe(
      '1a2b3c4d-5e6f-7081-a0b1-c2d3e4f6060e',
    );
  });
});

describe('binary identifiers', () => {
  it('reads objectSid as S-1-5-21-… and mS-DS-ConsistencyGuid as a GUID, as Buffers or as decoded text', () => {
    const sid = Buffer.from('010500000000000515000000dcf4dc3b833d2b46828ba62800020000', 'hex');
    const guid = Buffer.from('rk8d+Ox90BGnZQCgyR5r9g==', 'base64');
    const entry = new EntryValues({
      dn: 'CN=Ada',
      objectSid: sid,
      'mS-DS-ConsistencyGuid': guid,
      objectGUID: Buffer.from('0123456789abcdef').toString('utf8'),
    });
    expect(entry.text('objectsid')).toEqual(['S-1-5-21-1004336348-1177238915-682003330-512']);
    expect(entry.text('ms-ds-consistencyGuid')).toEqual([ADA]);
    expect(entry.text('objectGUID')).toEqual([ZOE]);
  });
});

describe('ranged retrieval of large member lists (AD answers member;range=0-1499)', () => {
  const entry = (attributes: Record<string, string[]>) =>
    new EntryValues({ dn: 'CN=Big,OU=Groups', ...attributes });

  it('reads the first range from the entry, then asks for the rest until a range ends in *', async () => {
    const first = readRanged(entry({ 'member;range=0-1': ['CN=a', 'CN=b'] }), 'member');
    expect(first).toEqual({ values: ['CN=a', 'CN=b'], next: 2 });
    const asked: string[] = [];
    const ranges: Record<string, Record<string, string[]>> = {
      'member;range=2-*': { 'member;range=2-3': ['CN=c', 'CN=d'] },
      'member;range=4-*': { 'member;range=4-*': ['CN=e'] },
    };
    const rest = await readRemainingRanges('member', 2, async (attribute) => {
      asked.push(attribute);
      const answer = ranges[attribute];
      return answer === undefined ? undefined : entry(answer);
    });
    expect(rest).toEqual(['CN=c', 'CN=d', 'CN=e']);
    expect(asked).toEqual(['member;range=2-*', 'member;range=4-*']);
  });

  it('takes a plain attribute as complete, and stops on a range that does not move forward', async () => {
    expect(readRanged(entry({ member: ['CN=a'] }), 'member')).toEqual({ values: ['CN=a'], next: undefined });
    const rest = await readRemainingRanges('member', 2, async () => entry({ 'member;range=0-1': ['CN=x'] }));
    expect(rest).toEqual(['CN=x']);
  });
});

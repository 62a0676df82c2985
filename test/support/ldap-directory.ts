import { Attribute, Change } from 'ldapts';
import type { Slapd } from './slapd.js';

/** One modification of one attribute, for Client.modify. */
export const ldapChange = (operation: 'add' | 'delete' | 'replace', type: string, value: string): Change =>
  new Change({ operation, modification: new Attribute({ type, values: [value] }) });

/** The numbers from `from` to `to`, both included. */
export const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A group of names: its cn and its members' DNs (people or groups), written in this order. */
export type TestGroup = readonly [cn: string, members: readonly string[]];

/**
 * A small test directory under `suffix`: people p01, p02… (`digits` wide) under ou=people with
 * uid, cn, sn and mail, and groupOfNames under ou=groups, written as LDIF for slapadd.
 */
export function testDirectory(suffix = 'dc=example,dc=com', digits = 2) {
  const person = (n: number) => `p${String(n).padStart(digits, '0')}`;
  const dnOf = (n: number) => `uid=${person(n)},ou=people,${suffix}`;
  const groupDn = (cn: string) => `cn=${cn},ou=groups,${suffix}`;
  /** The suffix and its two OUs, `extra` entries, `people` people, then the groups. */
  const ldif = (people: number, groups: readonly TestGroup[], extra: readonly string[] = []): string => {
    const lines = [
      `dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
      `dn: ou=people,${suffix}\nobjectClass: organizationalUnit\nou: people\n`,
      `dn: ou=groups,${suffix}\nobjectClass: organizationalUnit\nou: groups\n`,
      ...extra,
    ];
    for (const n of range(1, people))
      lines.push(
        `dn: ${dnOf(n)}\nobjectClass: inetOrgPerson\nuid: ${person(n)}\ncn: Person ${n}\nsn: Number${n}\nmail: ${person(n)}@example.com\n`,
      );
    for (const [cn, members] of groups)
      lines.push(
        `dn: ${groupDn(cn)}\nobjectClass: groupOfNames\ncn: ${cn}\n${members.map((m) => `member: ${m}`).join('\n')}\n`,
      );
    return lines.join('\n');
  };
  return { suffix, person, dnOf, groupDn, ldif };
}

/** An LDAP server a test bridge reads: where, as whom, its two bases, and its preset. */
export interface LdapServer {
  url: string;
  bindDn: string;
  bindPassword: string;
  userBase: string;
  groupBase: string;
  schema?: 'active-directory';
}

/** The settings of a bridge reading `server` as its ldap source, deltas every `deltaSeconds` (0: off). */
export function ldapServerEnv(server: LdapServer, deltaSeconds = 0): Record<string, string> {
  return {
    DIRECTORY_SOURCE: 'ldap',
    ...(server.schema ? { LDAP_SCHEMA: server.schema } : {}),
    LDAP_URL: server.url,
    LDAP_BIND_DN: server.bindDn,
    LDAP_BIND_PASSWORD: server.bindPassword,
    LDAP_USER_BASE: server.userBase,
    LDAP_GROUP_BASE: server.groupBase,
    DIRECTORY_DELTA_SECONDS: String(deltaSeconds),
    SYNC_SCHEDULE: '',
  };
}

/** The settings of a bridge reading the test's `slapd` under `suffix` (ou=people, ou=groups). */
export function ldapSourceEnv(slapd: Slapd, suffix: string, deltaSeconds = 0): Record<string, string> {
  return ldapServerEnv(
    {
      url: slapd.url,
      bindDn: slapd.rootDn,
      bindPassword: slapd.rootPassword,
      userBase: `ou=people,${suffix}`,
      groupBase: `ou=groups,${suffix}`,
    },
    deltaSeconds,
  );
}

/** The settings of a bridge reading a Samba AD DC with the active-directory preset over two bases. */
export function adSourceEnv(
  dc: { url: string; bindDn: string; bindPassword: string },
  bases: { userBase: string; groupBase: string },
  deltaSeconds = 0,
): Record<string, string> {
  const { url, bindDn, bindPassword } = dc;
  return ldapServerEnv({ schema: 'active-directory', url, bindDn, bindPassword, ...bases }, deltaSeconds);
}

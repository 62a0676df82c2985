import { BridgeError } from '../../../domain/errors.js';

/**
 * Which LDAP attributes give each snapshot attribute, per preset (docs/ldap.md has the table), and
 * the operator's per-attribute overrides (`directory.ldap.userAttributes` / `groupAttributes`, SCIM
 * attribute → LDAP attribute). Each entry is a list: the first attribute present on an entry wins
 * (`members` takes them all). An override may name several attributes separated by commas
 * (`userName: 'mail,uid'`) or none (`active: ''`: everyone is active).
 */

export type LdapPreset = 'openldap' | 'active-directory';

export const USER_ATTRIBUTES = [
  'id',
  'userName',
  'givenName',
  'familyName',
  'email',
  'active',
  'externalId',
] as const;
export const GROUP_ATTRIBUTES = ['id', 'displayName', 'members', 'externalId'] as const;

export type UserAttribute = (typeof USER_ATTRIBUTES)[number];
export type GroupAttribute = (typeof GROUP_ATTRIBUTES)[number];

export interface LdapMapping {
  users: Readonly<Record<UserAttribute, readonly string[]>>;
  groups: Readonly<Record<GroupAttribute, readonly string[]>>;
  userFilter: string;
  groupFilter: string;
}

export const PRESETS: Readonly<Record<LdapPreset, LdapMapping>> = {
  openldap: {
    users: {
      id: ['entryUUID'],
      userName: ['mail', 'uid'],
      givenName: ['givenName'],
      familyName: ['sn'],
      email: ['mail'],
      active: [],
      externalId: [],
    },
    groups: { id: ['entryUUID'], displayName: ['cn'], members: ['member', 'uniqueMember'], externalId: [] },
    userFilter: '(objectClass=inetOrgPerson)',
    groupFilter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))',
  },
  'active-directory': {
    users: {
      id: ['objectGUID'],
      userName: ['userPrincipalName'],
      givenName: ['givenName'],
      familyName: ['sn'],
      email: ['mail'],
      active: ['userAccountControl'],
      externalId: [],
    },
    groups: { id: ['objectGUID'], displayName: ['cn'], members: ['member'], externalId: [] },
    userFilter: '(&(objectCategory=person)(objectClass=user))',
    groupFilter: '(objectClass=group)',
  },
};

/** Other spellings accepted as override keys (matched case-insensitively, as SCIM names are). */
const ALIASES: Readonly<Record<string, string>> = {
  'name.givenname': 'givenName',
  'name.familyname': 'familyName',
  emails: 'email',
  'emails.value': 'email',
  member: 'members',
};

const REQUIRED = new Set(['id', 'userName', 'displayName', 'members']);

export interface MappingSettings {
  schema: LdapPreset;
  userFilter: string;
  groupFilter: string;
  userAttributes: Readonly<Record<string, string>>;
  groupAttributes: Readonly<Record<string, string>>;
}

/**
 * The preset with the overrides applied. The filters given win, except that the OpenLDAP defaults
 * (config/default.yaml's) stand for "the preset's filters" under the Active Directory preset.
 */
export function resolveMapping(settings: MappingSettings): LdapMapping {
  const preset = PRESETS[settings.schema];
  const problems: string[] = [];
  const users = override(preset.users, USER_ATTRIBUTES, settings.userAttributes, 'userAttributes', problems);
  const groups = override(
    preset.groups,
    GROUP_ATTRIBUTES,
    settings.groupAttributes,
    'groupAttributes',
    problems,
  );
  if (problems.length > 0) {
    throw new BridgeError('invalid_input', `Invalid LDAP attribute mapping: ${problems.join('; ')}`, {
      problems,
    });
  }
  const defaults = PRESETS.openldap;
  return {
    users,
    groups,
    userFilter: settings.userFilter === defaults.userFilter ? preset.userFilter : settings.userFilter,
    groupFilter: settings.groupFilter === defaults.groupFilter ? preset.groupFilter : settings.groupFilter,
  };
}

function override<K extends string>(
  base: Readonly<Record<K, readonly string[]>>,
  keys: readonly K[],
  overrides: Readonly<Record<string, string>>,
  setting: string,
  problems: string[],
): Record<K, readonly string[]> {
  const out: Record<K, readonly string[]> = { ...base };
  for (const [given, value] of Object.entries(overrides)) {
    const key = canonicalKey(given, keys);
    const path = `${setting}.${given}`;
    if (key === undefined) {
      problems.push(`${path}: not a mapped attribute; expected one of ${keys.join(', ')}`);
      continue;
    }
    const names = value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (names.some((name) => !/^[A-Za-z][\w-]*(;[\w-]+)*$|^\d+(\.\d+)+$/.test(name))) {
      problems.push(`${path}: not an LDAP attribute name (or a comma-separated list of them)`);
    } else if (names.length === 0 && REQUIRED.has(key)) {
      problems.push(`${path}: required, cannot be empty`);
    } else {
      out[key] = names;
    }
  }
  return out;
}

function canonicalKey<K extends string>(given: string, keys: readonly K[]): K | undefined {
  const lower = given.toLowerCase();
  const name = ALIASES[lower] ?? given;
  return keys.find((key) => key.toLowerCase() === name.toLowerCase());
}

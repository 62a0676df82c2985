import { z } from 'zod';
import type { SectionProblem, SectionSettings } from '../../../config/catalog.js';
import { int, optionalUrl } from '../../../config/schema.js';
import { isBridgeError } from '../../../domain/errors.js';
import { resolveMapping } from './ldap-attribute-map.js';

const ldapFilter = (fallback: string) =>
  z
    .string()
    .regex(/^\(.*\)$/s, 'not an LDAP filter in parentheses')
    .default(fallback);

/** The `ldap` source's settings (`directory.ldap`), with config/default.yaml's defaults. */
const shape = z.object({
  url: optionalUrl(['ldap', 'ldaps']).default(''),
  bindDn: z.string().default(''),
  bindPassword: z.string().default(''),
  userBase: z.string().default(''),
  userFilter: ldapFilter('(objectClass=inetOrgPerson)'),
  groupBase: z.string().default(''),
  groupFilter: ldapFilter('(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))'),
  schema: z.enum(['openldap', 'active-directory'], { error: 'not a known preset' }).default('openldap'),
  startTls: z.boolean({ error: 'not true or false' }).default(false),
  caFile: z.string().default(''),
  rejectUnauthorized: z.boolean({ error: 'not true or false' }).default(true),
  pageSize: int(1, 10_000).default(500),
  timeoutSeconds: int(1, 600).default(30),
  userAttributes: z.record(z.string(), z.string()).default({}),
  groupAttributes: z.record(z.string(), z.string()).default({}),
  // How the directory says what changed (deltaSeconds): auto picks the preset's.
  delta: z
    .enum(['auto', 'accesslog', 'usn', 'none'], { error: 'not auto, accesslog, usn or none' })
    .default('auto'),
  accesslogBase: z.string().min(1, 'empty').default('cn=accesslog'),
});

export type LdapSettings = z.output<typeof shape>;

export const ldapSettings: SectionSettings<typeof shape> = {
  key: 'ldap',
  shape,
  env: [
    { env: 'LDAP_URL', key: 'url', kind: 'string', expected: 'an ldap:// or ldaps:// URL' },
    {
      env: 'LDAP_BIND_DN',
      key: 'bindDn',
      kind: 'string',
      expected: 'a DN, e.g. cn=bridge,dc=example,dc=com',
    },
    {
      env: 'LDAP_BIND_PASSWORD',
      key: 'bindPassword',
      kind: 'string',
      expected: 'the bind password',
      secret: true,
    },
    {
      env: 'LDAP_USER_BASE',
      key: 'userBase',
      kind: 'string',
      expected: 'a base DN, e.g. ou=people,dc=example,dc=com',
    },
    { env: 'LDAP_USER_FILTER', key: 'userFilter', kind: 'string', expected: 'an LDAP filter in parentheses' },
    {
      env: 'LDAP_GROUP_BASE',
      key: 'groupBase',
      kind: 'string',
      expected: 'a base DN, e.g. ou=groups,dc=example,dc=com',
    },
    {
      env: 'LDAP_GROUP_FILTER',
      key: 'groupFilter',
      kind: 'string',
      expected: 'an LDAP filter in parentheses',
    },
    { env: 'LDAP_SCHEMA', key: 'schema', kind: 'string', expected: 'openldap or active-directory' },
  ],
  problems: ldapProblems,
};

/** What a directory using the `ldap` source must have, and the settings that contradict each other. */
function ldapProblems(settings: LdapSettings): SectionProblem[] {
  const problems: SectionProblem[] = [];
  for (const key of ['url', 'userBase', 'groupBase'] as const)
    if (settings[key] === '') problems.push({ key, message: 'required' });
  if (settings.bindDn !== '' && settings.bindPassword === '')
    problems.push({ key: 'bindPassword', message: 'required with a bind DN' });
  if (settings.startTls && settings.url.toLowerCase().startsWith('ldaps:'))
    problems.push({ key: 'startTls', message: 'not with an ldaps:// URL, which is TLS already' });
  return [...problems, ...mappingProblems(settings)];
}

function mappingProblems(settings: LdapSettings): SectionProblem[] {
  try {
    resolveMapping(settings);
    return [];
  } catch (error) {
    if (!isBridgeError(error, 'invalid_input')) throw error;
    return error.problems.map((line) => {
      const at = line.indexOf(': ');
      return { key: line.slice(0, at), message: line.slice(at + 2) };
    });
  }
}

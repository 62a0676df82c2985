import type { LdapSettings } from './ldap.settings.js';
import type { DeltaSource } from '../../../domain/input.js';
import type { Logger } from '../../../ops/logger.js';
import type { CompiledPolicy } from '../../../domain/identity-policy.js';
import { AccesslogDelta } from './accesslog.delta.js';
import { resolveMapping, type LdapMapping } from './ldap-attribute-map.js';
import type { LdapScope } from './ldap-scope.js';
import { UsnDelta } from './usn.delta.js';

/**
 * The delta read of an LDAP directory, as `directory.ldap.delta` says: OpenLDAP's access log
 * (`accesslog`, the openldap preset's), Active Directory's uSNChanged (`usn`, the active-directory
 * preset's), or none.
 */
export function ldapDelta(
  settings: LdapSettings,
  logger?: Logger,
  policy?: CompiledPolicy,
): DeltaSource | undefined {
  const mode =
    settings.delta === 'auto' ? (settings.schema === 'openldap' ? 'accesslog' : 'usn') : settings.delta;
  const activeDirectory = mode === 'usn' || settings.schema === 'active-directory';
  const scope: LdapScope = {
    mapping: withPolicyAttributes(resolveMapping(settings), policy),
    ...(policy && !policy.isDefault ? { facts: true } : {}),
    userBase: settings.userBase,
    groupBase: settings.groupBase,
    dnAttribute: activeDirectory ? 'distinguishedName' : 'entryDN',
  };
  if (mode === 'accesslog') return new AccesslogDelta(settings, scope, logger);
  if (mode === 'usn') return new UsnDelta(settings, scope, logger);
  return undefined;
}

/**
 * The mapping whose attribute lists the delta reads ask for, with those the scope and mapping read
 * riding along under a key of their own (the preset's keys, which decide the values, are as they were).
 */
function withPolicyAttributes(mapping: LdapMapping, policy: CompiledPolicy | undefined): LdapMapping {
  if (!policy || policy.isDefault) return mapping;
  const ride = (list: readonly string[]) => ({ policyAttributes: list });
  return {
    ...mapping,
    users: { ...mapping.users, ...ride(policy.users.attributes) } as LdapMapping['users'],
    groups: { ...mapping.groups, ...ride(policy.groups.attributes) } as LdapMapping['groups'],
  };
}

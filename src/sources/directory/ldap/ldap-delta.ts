import type { Config } from '../../../config/schema.js';
import type { DeltaRead } from '../../../domain/input.js';
import type { Logger } from '../../../ops/logger.js';
import { AccesslogDelta } from './accesslog.delta.js';
import { resolveMapping } from './ldap-attribute-map.js';
import type { LdapScope } from './ldap-scope.js';
import { UsnDelta } from './usn.delta.js';

/**
 * The delta read of an LDAP directory, as `directory.ldap.delta` says: OpenLDAP's access log
 * (`accesslog`, the openldap preset's), Active Directory's uSNChanged (`usn`, the active-directory
 * preset's), or none.
 */
export function ldapDelta(settings: Config['directory']['ldap'], logger?: Logger): DeltaRead | undefined {
  const mode =
    settings.delta === 'auto' ? (settings.schema === 'openldap' ? 'accesslog' : 'usn') : settings.delta;
  const activeDirectory = mode === 'usn' || settings.schema === 'active-directory';
  const scope: LdapScope = {
    mapping: resolveMapping(settings),
    userBase: settings.userBase,
    groupBase: settings.groupBase,
    dnAttribute: activeDirectory ? 'distinguishedName' : 'entryDN',
  };
  if (mode === 'accesslog') return new AccesslogDelta(settings, scope, logger);
  if (mode === 'usn') return new UsnDelta(settings, scope, logger);
  return undefined;
}

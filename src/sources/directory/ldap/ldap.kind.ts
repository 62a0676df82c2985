import { directorySourceKind, type SourceContext } from '../../source-kind.js';
import { ldapDelta } from './ldap-delta.js';
import { policyNeeds } from './ldap-policy.js';
import { LdapDirectorySource } from './ldap.source.js';
import { ldapSettings, type LdapSettings } from './ldap.settings.js';

/**
 * The `ldap` source (OpenLDAP, Active Directory, any LDAPv3 server): read in full by paged searches,
 * and for what changed from OpenLDAP's access log or Active Directory's uSNChanged (SPEC §5.4).
 */
export const ldapSource = directorySourceKind({
  title: 'LDAP / Active Directory',
  settings: ldapSettings,
  build: (settings, context) =>
    new LdapDirectorySource(
      withLivePassword(settings, context),
      context.logger,
      policyNeeds(context.policies),
    ),
  changes: (settings, context) =>
    ldapDelta(withLivePassword(settings, context), context.logger, context.policies[0]),
});

/** The settings with the bind password read as it is now at each bind (a rotated LDAP_BIND_PASSWORD_FILE). */
function withLivePassword(settings: LdapSettings, context: SourceContext): LdapSettings {
  const password = context.secret('bindPassword');
  return Object.defineProperty({ ...settings }, 'bindPassword', { get: password, enumerable: true });
}

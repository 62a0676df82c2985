import type { CompiledPolicy } from '../../../domain/identity-policy.js';
import type { LdapMapping } from './ldap-attribute-map.js';

/** Where a directory's users and groups are, and how a member DN is searched for. */
export interface LdapScope {
  mapping: LdapMapping;
  userBase: string;
  groupBase: string;
  /** The attribute that holds an entry's own DN: `entryDN` (OpenLDAP), `distinguishedName` (AD). */
  dnAttribute: string;
  /** The directory's scope and mapping (absent: the preset's mapping alone). */
  policy?: CompiledPolicy;
}

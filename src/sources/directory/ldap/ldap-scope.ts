import type { LdapMapping } from './ldap-attribute-map.js';
import type { LdapReader } from './ldap-reader.js';
import type { EntryValues } from './ldap-values.js';

/** Where a directory's users and groups are, and how a member DN is searched for. */
export interface LdapScope {
  mapping: LdapMapping;
  userBase: string;
  groupBase: string;
  /** The attribute that holds an entry's own DN: `entryDN` (OpenLDAP), `distinguishedName` (AD). */
  dnAttribute: string;
  /** Whether each entry's facts ride along for a scope or mapping to read (policy-context.ts). */
  facts?: boolean;
}

/** The attributes a group entry is read with: those of the groups' mapping. */
export function groupEntryAttributes(scope: LdapScope): string[] {
  return [...new Set(Object.values(scope.mapping.groups).flat())];
}

/** Every group in scope — under the group base, matching the group filter — as a full read finds them. */
export function groupsInScope(reader: LdapReader, scope: LdapScope): Promise<EntryValues[]> {
  return reader.search(scope.groupBase, scope.mapping.groupFilter, groupEntryAttributes(scope));
}

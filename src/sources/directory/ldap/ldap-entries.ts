import type { LdapMapping } from './ldap-attribute-map.js';
import { readRanged } from './ldap-ranged-values.js';
import { activeValue, type EntryValues } from './ldap-values.js';

/**
 * One LDAP entry as a snapshot item. Values are only picked here; the snapshot validation checks
 * them. An entry without an id or a userName (displayName for groups) cannot be a SCIM identity and
 * is left out: `undefined`, which the source reports.
 */

export type UserMap = LdapMapping['users'];
export type GroupMap = LdapMapping['groups'];

export function mapUser(entry: EntryValues, map: UserMap): Record<string, unknown> | undefined {
  const id = entry.first(map.id)?.values[0];
  const userName = entry.first(map.userName)?.values[0];
  if (id === undefined || userName === undefined) return undefined;
  const user: Record<string, unknown> = { id, userName };
  const givenName = entry.first(map.givenName)?.values[0];
  const familyName = entry.first(map.familyName)?.values[0];
  if (givenName !== undefined || familyName !== undefined) user.name = { givenName, familyName };
  const emails = uniqueIgnoringCase(entry.first(map.email)?.values ?? []);
  if (emails.length > 0) {
    user.emails = emails.map((value, index) => ({
      value,
      type: 'work',
      ...(index === 0 ? { primary: true } : {}),
    }));
  }
  const active = entry.first(map.active);
  const activeText = active?.values[0];
  if (active !== undefined && activeText !== undefined) user.active = activeValue(active.name, activeText);
  const externalId = entry.first(map.externalId)?.values[0];
  if (externalId !== undefined) user.externalId = externalId;
  return user;
}

export interface MappedGroup {
  item: { id: string; displayName: string; externalId?: string };
  /** Member DNs read so far. */
  memberDns: string[];
  /** Member attributes whose further ranges are still to be read (Active Directory), by start. */
  pendingRanges: { name: string; start: number }[];
}

export function mapGroup(entry: EntryValues, map: GroupMap): MappedGroup | undefined {
  const id = entry.first(map.id)?.values[0];
  const displayName = entry.first(map.displayName)?.values[0];
  if (id === undefined || displayName === undefined) return undefined;
  const item: MappedGroup['item'] = { id, displayName };
  const externalId = entry.first(map.externalId)?.values[0];
  if (externalId !== undefined) item.externalId = externalId;
  return { item, ...groupMembers(entry, map) };
}

/** A group entry's member DNs as it came, and which member attributes have further ranges. */
export function groupMembers(entry: EntryValues, map: GroupMap): Omit<MappedGroup, 'item'> {
  const memberDns: string[] = [];
  const pendingRanges: MappedGroup['pendingRanges'] = [];
  for (const name of map.members) {
    const { values, next } = readRanged(entry, name);
    memberDns.push(...values.map(memberDn));
    if (next !== undefined) pendingRanges.push({ name, start: next });
  }
  return { memberDns, pendingRanges };
}

/** `uniqueMember` values may carry an optional unique identifier: `cn=ada,dc=x#'0101'B` (RFC 4517 §3.3.21). */
export function memberDn(value: string): string {
  return value.replace(/#'[01]*'B$/, '');
}

function uniqueIgnoringCase(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = value.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

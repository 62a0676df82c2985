import { Control } from 'ldapts';
import { generalizedTimeMs } from './accesslog-entries.js';
import type { ChangedEntries } from './ldap-delta-changes.js';
import { isUnder } from './ldap-context.js';
import { dnKey } from './ldap-dn.js';
import { allOf } from './ldap-filter.js';
import type { LdapReader } from './ldap-reader.js';
import type { LdapScope } from './ldap-scope.js';
import type { EntryValues } from './ldap-values.js';

/** LDAP_SERVER_SHOW_DELETED_OID (MS-ADTS §3.1.1.3.4.1.14): the search sees tombstones. */
export const SHOW_DELETED = '1.2.840.113556.1.4.417';

/** What changed in the domain after a USN, as a delta read feeds ldap-delta-changes.ts. */
export interface UsnRead {
  entries: ChangedEntries;
  /** The newest `whenChanged` of the entries read (ms). */
  newestAt?: number;
  /** Deletions in scope whose id attribute the tombstone no longer shows (it keeps few). */
  unkeyed: string[];
}

const USERS_AND_GROUPS = '(|(objectClass=user)(objectClass=group))';

/**
 * The users and groups whose uSNChanged is above `after` (every add, modify, rename, move and
 * (dis)abling bumps it; adding or removing a group member bumps the group): those in scope as they
 * are now; those changed elsewhere in the naming contexts — moved out of the base, or no longer
 * matching the filter — and the tombstones under `CN=Deleted Objects` (read with the Show Deleted
 * control; the container itself is deleted too, hence the objectClass terms) as ids to delete.
 * The domain-wide search runs first: an entry that leaves the scope after it is still seen gone by
 * the scope searches, one that enters it is seen in scope. A deleted user is taken out of its
 * groups by the desired state itself (AD does not bump the groups it leaves).
 */
export async function readUsnChanges(
  reader: LdapReader,
  scope: LdapScope,
  namingContexts: readonly string[],
  after: bigint,
): Promise<UsnRead> {
  const since = `(uSNChanged>=${after + 1n})`;
  const anywhere: EntryValues[] = [];
  for (const context of namingContexts)
    anywhere.push(...(await reader.search(context, allOf(USERS_AND_GROUPS, since), idAttributes(scope))));
  const { mapping } = scope;
  const users = await reader.search(
    scope.userBase,
    allOf(mapping.userFilter, since),
    attributes(mapping.users),
  );
  const groups = await reader.search(
    scope.groupBase,
    allOf(mapping.groupFilter, since),
    attributes(mapping.groups),
  );
  const deleted = await tombstones(reader, scope, namingContexts, since);
  const inScope = new Set([...users, ...groups].map(guidOf));
  const outOfScope = anywhere.filter((entry) => !inScope.has(guidOf(entry)));
  const newestAt = newest([...anywhere, ...users, ...groups, ...deleted]);
  return {
    entries: {
      users,
      groups,
      gone: goneIds([...outOfScope, ...deleted], scope),
      groupDns: outOfScope.filter(isGroup).map((entry) => entry.dn),
    },
    unkeyed: unkeyedInScope(deleted, scope),
    ...(newestAt === undefined ? {} : { newestAt }),
  };
}

/** The tombstones of users and groups deleted since, in each naming context's Deleted Objects. */
async function tombstones(
  reader: LdapReader,
  scope: LdapScope,
  namingContexts: readonly string[],
  since: string,
): Promise<EntryValues[]> {
  const found: EntryValues[] = [];
  const controls = [new Control(SHOW_DELETED, { critical: true })];
  const filter = allOf('(isDeleted=TRUE)', since, USERS_AND_GROUPS);
  for (const context of namingContexts)
    found.push(
      ...(await reader.search(`CN=Deleted Objects,${context}`, filter, idAttributes(scope), { controls })),
    );
  return found;
}

/**
 * Deletions in scope whose id the tombstone no longer shows (an id mapped to an attribute AD strips
 * on deletion): they cannot be applied here; the next full sync deprovisions them.
 */
function unkeyedInScope(deleted: readonly EntryValues[], scope: LdapScope): string[] {
  const bases = [scope.userBase, scope.groupBase].map(dnKey);
  const wasInScope = (entry: EntryValues) =>
    bases.some((base) => isUnder(dnKey(entry.text('lastKnownParent')[0] ?? ''), base));
  return deleted.filter((entry) => idOf(entry, scope) === undefined && wasInScope(entry)).map((e) => e.dn);
}

function idAttributes(scope: LdapScope): string[] {
  const ids = [...scope.mapping.users.id, ...scope.mapping.groups.id];
  return [...new Set(['objectGUID', 'objectClass', 'whenChanged', 'lastKnownParent', ...ids])];
}

function attributes(map: Readonly<Record<string, readonly string[]>>): string[] {
  return [...new Set(['objectGUID', 'whenChanged', ...Object.values(map).flat()])];
}

/** The ids to delete, each once, by the id attribute of the entry's kind. */
function goneIds(entries: readonly EntryValues[], scope: LdapScope): ChangedEntries['gone'] {
  const gone = new Map<string, { id: string; kind: 'user' | 'group' }>();
  for (const entry of entries) {
    const kind = isGroup(entry) ? 'group' : 'user';
    const id = idOf(entry, scope);
    if (id !== undefined) gone.set(`${kind}:${id}`, { id, kind });
  }
  return [...gone.values()];
}

function idOf(entry: EntryValues, scope: LdapScope): string | undefined {
  return entry.first(isGroup(entry) ? scope.mapping.groups.id : scope.mapping.users.id)?.values[0];
}

function isGroup(entry: EntryValues): boolean {
  return entry.text('objectClass').some((name) => name.toLowerCase() === 'group');
}

function guidOf(entry: EntryValues): string {
  return entry.text('objectGUID')[0] ?? entry.dn;
}

function newest(entries: readonly EntryValues[]): number | undefined {
  const times = entries.flatMap((entry) => {
    const ms = generalizedTimeMs(entry.text('whenChanged')[0] ?? '');
    return ms === undefined ? [] : [ms];
  });
  return times.length === 0 ? undefined : Math.max(...times);
}

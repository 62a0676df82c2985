import type { SourceChange } from '../../../domain/input.js';
import { attachFacts } from '../../../domain/policy-context.js';
import { groupsInScope, type LdapScope } from './ldap-scope.js';
import { mapUser } from './ldap-entries.js';
import { LdapGroupEdges } from './ldap-group-edges.js';
import type { LdapReader } from './ldap-reader.js';
import type { EntryValues } from './ldap-values.js';
import { entryFacts } from './ldap-policy.js';

/** What a delta read found in the directory, before it becomes desired-state changes. */
export interface ChangedEntries {
  /** Changed users as they are now, in scope (under the user base, matching the user filter). */
  users: readonly EntryValues[];
  /** Changed groups as they are now, in scope. */
  groups: readonly EntryValues[];
  /**
   * Ids of entries deleted or no longer in scope; the kind when known. A group among them (or an
   * entry that may be one) has every group read again: see deltaChanges.
   */
  gone: readonly { id: string; kind?: 'user' | 'group' }[];
  /** DNs of groups changed, renamed or deleted: the groups that contain them are read again. */
  groupDns: readonly string[];
}

export interface DeltaItems {
  changes: SourceChange[];
  /** Entries left out before any scope: no id or name (their DN and why). */
  skipped: { label: string; reason: string }[];
}

const DETAIL = 'directory change (delta read)';

/**
 * The changes of a delta read (SPEC §5.4, Deltas), as the source states them — its items as a full
 * read makes them, each entry's facts attached for the directory's scope and mapping, which sync/
 * applies: changed users upserted; changed groups — and every group that contains one,
 * transitively, since the platform's groups hold the flattened members — upserted with their
 * members read afresh (ldap-group-edges.ts); what is gone removed. A group that is gone (deleted,
 * moved out of the base, no longer matching the filter) can no longer be found in the groups that
 * held it: the directory took it out of their members (slapo-refint, Active Directory's links),
 * which may not be logged as their own change. Every group in scope is then read again, so that
 * its members leave the groups that held it (the store leaves unchanged groups as they are).
 * Upserts come first, removals last, users before groups, as the store applies a batch in order.
 */
export async function deltaChanges(
  reader: LdapReader,
  scope: LdapScope,
  entries: ChangedEntries,
): Promise<DeltaItems> {
  const skipped: DeltaItems['skipped'] = [];
  const users = entries.users.flatMap((entry) => userChange(entry, scope, skipped));
  const graph = new LdapGroupEdges(reader, scope);
  const parents = entries.gone.some((entry) => entry.kind !== 'user')
    ? await groupsInScope(reader, scope)
    : await graph.holding([...entries.groupDns, ...entries.groups.map((g) => g.dn)]);
  const groups = (await graph.flattened([...entries.groups, ...parents])).map(
    ({ entry, item }): SourceChange => ({
      op: 'upsert',
      kind: 'groups',
      item: scope.facts ? attachFacts({ ...item }, entryFacts(entry)) : item,
      label: entry.dn,
      detail: DETAIL,
    }),
  );
  const removed = (kind: 'users' | 'groups', id: string): SourceChange => ({
    op: 'remove',
    kind,
    id,
    detail: DETAIL,
  });
  const groupRemovals = entries.gone.flatMap(({ id, kind }) =>
    kind !== 'user' ? [removed('groups', id)] : [],
  );
  const userRemovals = entries.gone.flatMap(({ id, kind }) =>
    kind !== 'group' ? [removed('users', id)] : [],
  );
  return { changes: [...users, ...groups, ...groupRemovals, ...userRemovals], skipped };
}

function userChange(entry: EntryValues, scope: LdapScope, skipped: DeltaItems['skipped']): SourceChange[] {
  const raw = mapUser(entry, scope.mapping.users);
  if (raw === undefined) {
    skipped.push({ label: entry.dn, reason: 'no value for id or userName' });
    return [];
  }
  const item = scope.facts ? attachFacts(raw, entryFacts(entry)) : raw;
  return [{ op: 'upsert', kind: 'users', item, label: entry.dn, detail: DETAIL }];
}

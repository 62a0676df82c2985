import type { DesiredChange } from '../../../domain/desired-change.js';
import { groupSchema, userSchema } from '../../../domain/snapshot.schema.js';
import type { LdapMapping } from './ldap-attribute-map.js';
import { groupEntryAttributes, groupsInScope, type LdapScope } from './ldap-scope.js';
import { dnKey } from './ldap-dn.js';
import { mapUser } from './ldap-entries.js';
import { escapeFilterValue, allOf, anyOf } from './ldap-filter.js';
import { GroupGraph } from './ldap-group-graph.js';
import type { LdapReader } from './ldap-reader.js';
import type { EntryValues } from './ldap-values.js';
import { policyGroupChange, policyUserChange, refuseMembershipDelta } from './ldap-delta-policy.js';

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
  changes: DesiredChange[];
  /** Entries left out: no id or name, or not a valid identity (their DN and why). */
  skipped: { dn: string; reason: string }[];
}

const SEARCH_BATCH = 100;
const signal = { source: 'directory' as const, detail: 'directory change (delta read)' };

/**
 * The desired-state changes of a delta read (SPEC §5.4, Deltas), written as the directory's own:
 * changed users upserted; changed groups — and every group that contains one, transitively, since
 * the platform's groups hold the flattened members — upserted with their members read afresh
 * (ldap-group-graph.ts); what is gone deleted. A group that is gone (deleted, moved out of the
 * base, no longer matching the filter) can no longer be found in the groups that held it: the
 * directory took it out of their members (slapo-refint, Active Directory's links), which may not
 * be logged as their own change. Every group in scope is then read again, so that its members
 * leave the groups that held it (the store leaves unchanged groups as they are). Upserts come
 * first, deletions last, users before groups, as the store applies a batch in order.
 */
export async function deltaChanges(
  reader: LdapReader,
  scope: LdapScope,
  entries: ChangedEntries,
): Promise<DeltaItems> {
  const skipped: DeltaItems['skipped'] = [];
  const { policy } = scope;
  refuseMembershipDelta(policy, entries.groups.length > 0 || entries.groupDns.length > 0);
  const users = entries.users.flatMap((entry) =>
    policy
      ? policyUserChange(entry, scope.mapping, policy, skipped)
      : userChange(entry, scope.mapping, skipped),
  );
  const parents = entries.gone.some((entry) => entry.kind !== 'user')
    ? await groupsInScope(reader, scope)
    : await containingGroups(reader, scope, [...entries.groupDns, ...entries.groups.map((g) => g.dn)]);
  const graph = new GroupGraph(reader, scope);
  const groups = await graph.flattened([...entries.groups, ...parents]);
  const groupChanges = groups.flatMap(({ entry, item }) =>
    policy ? policyGroupChange(entry, item, policy, skipped) : groupChange(entry.dn, item, skipped),
  );
  const deletions = entries.gone.flatMap(({ id, kind }): DesiredChange[] => [
    ...(kind !== 'user' ? [{ op: 'deleteGroup' as const, id, signal }] : []),
    ...(kind !== 'group' ? [{ op: 'deleteUser' as const, id, signal }] : []),
  ]);
  const groupDeletions = deletions.filter((c) => c.op === 'deleteGroup');
  const userDeletions = deletions.filter((c) => c.op === 'deleteUser');
  return { changes: [...users, ...groupChanges, ...groupDeletions, ...userDeletions], skipped };
}

function userChange(
  entry: EntryValues,
  mapping: LdapMapping,
  skipped: DeltaItems['skipped'],
): DesiredChange[] {
  const raw = mapUser(entry, mapping.users);
  if (raw === undefined) {
    skipped.push({ dn: entry.dn, reason: 'no value for id or userName' });
    return [];
  }
  const parsed = userSchema.safeParse(raw);
  if (!parsed.success) {
    skipped.push({
      dn: entry.dn,
      reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    });
    return [];
  }
  return [{ op: 'upsertUser', user: parsed.data, mode: 'force', signal }];
}

function groupChange(dn: string, item: unknown, skipped: DeltaItems['skipped']): DesiredChange[] {
  const parsed = groupSchema.safeParse(item);
  if (!parsed.success) {
    skipped.push({
      dn,
      reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    });
    return [];
  }
  return [{ op: 'upsertGroup', group: parsed.data, mode: 'force', signal }];
}

/**
 * The groups in scope that contain any of `dns`, and those that contain them, up the nesting:
 * what a change of a nested group changes on the platform. Cycles end where a group was seen.
 */
async function containingGroups(
  reader: LdapReader,
  scope: LdapScope,
  dns: readonly string[],
): Promise<EntryValues[]> {
  const seen = new Set(dns.map(dnKey));
  const found: EntryValues[] = [];
  let frontier = [...new Set(dns)];
  const attributes = groupEntryAttributes(scope);
  while (frontier.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < frontier.length; i += SEARCH_BATCH) {
      const values = frontier.slice(i, i + SEARCH_BATCH).map(escapeFilterValue);
      const members = scope.mapping.groups.members.map((attribute) => anyOf(attribute, values));
      const filter = allOf(
        scope.mapping.groupFilter,
        members.length === 1 ? (members[0] ?? '') : `(|${members.join('')})`,
      );
      for (const entry of await reader.search(scope.groupBase, filter, attributes)) {
        const key = dnKey(entry.dn);
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(entry);
        next.push(entry.dn);
      }
    }
    frontier = next;
  }
  return found;
}

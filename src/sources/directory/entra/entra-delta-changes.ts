import {
  flattenGroups,
  withAncestors,
  type DirectMembers,
  type StoredGroupEdges,
} from '../../../domain/group-graph.js';
import type { SourceChange } from '../../../domain/input.js';
import { applyMembers, LEFT_OUT_REASON, leftOut, SOFT_DELETED } from './entra-graph-edges.js';
import { GROUP_SELECT, groupItem, labelOf, query, userItem, type GraphObject } from './entra-items.js';
import type { GroupRound, UserRound } from './entra-rounds.js';
import { directMembers, enclosingGroups, inScope, type Assigned, type InScope } from './entra-scope.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * What one change read's rounds mean for the platform (SPEC §5.5). The groups' member changes
 * update the graph the bridge keeps (group delta states direct members only, and never a change
 * that reaches a group through a nested one); every group whose flattened members may have changed
 * — the changed groups and all their ancestors, and the ancestors of a removed group — is flattened
 * again from the graph and upserted whole, its properties from the round or read anew.
 *
 * A user `@removed` is removed, which takes it out of every group at once. Group delta keeps a
 * soft-deleted user among its groups' members until the hard delete, 30 days on: the graph keeps
 * those edges and lists the user as soft-deleted (entra-graph-edges.ts), so that no group sent
 * meanwhile holds it; a restored user comes back in users delta and every group it is in
 * (`/transitiveMemberOf`) is sent again with it. With ENTRA_ASSIGNED_TO, what enters the scope is
 * upserted (a user read anew when the round did not bring it) and what leaves it is removed.
 */

export interface ChangeContext {
  graph: GraphSession;
  edges: StoredGroupEdges;
  userSelect: readonly string[];
  assigned?: Assigned;
  concurrency: number;
  gate: RequestGate;
}

export interface ChangesFound {
  changes: SourceChange[];
  skipped: { label: string; reason: string }[];
}

const NONE: DirectMembers = { users: [], groups: [] };

export async function deltaChanges(
  context: ChangeContext,
  users: UserRound,
  groups: GroupRound,
): Promise<ChangesFound> {
  const skipped: ChangesFound['skipped'] = [];
  const { edges, assigned } = context;
  const before = assigned ? await inScope(edges, assigned) : undefined;
  const deleted = await softDeleted(edges, users);
  const affected = await updateGraph(context, groups, skipped, deleted.changed ? deleted.users : undefined);
  for (const id of deleted.restored)
    for (const group of await enclosingGroups(context.graph, 'users', id, context.gate))
      affected.add(group.id);
  const after = assigned ? await inScope(edges, assigned) : undefined;
  const removed = new Set([...users.users].filter(([, u]) => 'removed' in u).map(([id]) => id));
  const gone = new Set([...deleted.users, ...removed]);
  const userChanges = await changedUsers(context, users, removed, { before, after });
  const groupChanges = await changedGroups(context, groups, affected, { gone, before, after });
  return { changes: [...userChanges, ...groupChanges], skipped };
}

/** The soft-deleted users after this round, whether that changed, and those it restored. */
async function softDeleted(edges: StoredGroupEdges, round: UserRound) {
  const users = new Set((await edges.members([SOFT_DELETED])).get(SOFT_DELETED)?.users ?? []);
  const restored: string[] = [];
  let changed = false;
  for (const [id, user] of round.users) {
    if ('removed' in user && user.removed === 'changed') {
      changed ||= !users.has(id);
      users.add(id);
    } else if (users.delete(id)) {
      changed = true;
      // Hard-deleted: group delta removes its edges. Back with its properties: restored.
      if (!('removed' in user)) restored.push(id);
    }
  }
  return { users, changed, restored };
}

/**
 * Applies the round's member changes to the kept graph (and the soft-deleted list when it
 * changed); returns the groups to send again — the changed ones with their ancestors, the
 * ancestors of removed ones — without the removed ones.
 */
async function updateGraph(
  context: ChangeContext,
  round: GroupRound,
  skipped: ChangesFound['skipped'],
  softDeletedUsers: ReadonlySet<string> | undefined,
): Promise<Set<string>> {
  const { edges } = context;
  const removed = [...round.groups].filter(([, g]) => g.removed !== undefined).map(([id]) => id);
  const changed = [...round.groups].filter(([, g]) => g.removed === undefined).map(([id]) => id);
  const orphaned = removed.length > 0 ? await withAncestors(edges, removed) : new Set<string>();
  const before = await edges.members(changed);
  const out = leftOut((member, type, group) =>
    skipped.push({ label: `${type} ${member} in ${group}`, reason: LEFT_OUT_REASON }),
  );
  const updates = new Map<string, DirectMembers | null>(removed.map((id) => [id, null]));
  for (const id of changed) {
    const group = round.groups.get(id);
    const held = before.get(id);
    if (!group || (group.members.size === 0 && held !== undefined)) continue;
    const label = typeof group.props?.displayName === 'string' ? group.props.displayName : id;
    // A group the graph does not hold and whose members the round does not list: a restored one
    // (group delta reports the restore, not the members it kept) or a new empty one.
    const members =
      held === undefined && group.members.size === 0
        ? await directMembers(context.graph, id, context.gate)
        : group.members;
    updates.set(id, applyMembers(held ?? NONE, { id, label }, members, out));
  }
  if (softDeletedUsers) updates.set(SOFT_DELETED, { users: [...softDeletedUsers], groups: [] });
  await edges.update(updates);
  const membersChanged = changed.filter((id) => updates.has(id));
  const affected = await withAncestors(edges, membersChanged);
  for (const id of [...changed, ...orphaned]) affected.add(id);
  for (const id of removed) affected.delete(id);
  return affected;
}

interface ScopeShift {
  before: InScope | undefined;
  after: InScope | undefined;
}

async function changedUsers(
  context: ChangeContext,
  round: UserRound,
  removed: ReadonlySet<string>,
  { before, after }: ScopeShift,
): Promise<SourceChange[]> {
  const upserts: SourceChange[] = [];
  const removals: SourceChange[] = [...removed].map((id) => remove('users', id));
  for (const [id, user] of round.users) {
    if ('removed' in user) continue;
    if (after === undefined || after.users.has(id)) upserts.push(upsert('users', userItem(user), user));
    else if (before?.users.has(id) === true) removals.push(remove('users', id));
  }
  if (after !== undefined && before !== undefined) {
    const entering = [...after.users].filter((id) => !before.users.has(id) && !round.users.has(id));
    const read = await readEach(context, entering, 'users');
    for (const raw of read) upserts.push(upsert('users', userItem(raw), raw));
    for (const id of before.users)
      if (!after.users.has(id) && !round.users.has(id)) removals.push(remove('users', id));
  }
  return [...upserts, ...removals];
}

async function changedGroups(
  context: ChangeContext,
  round: GroupRound,
  affected: Set<string>,
  shift: ScopeShift & { gone: ReadonlySet<string> },
): Promise<SourceChange[]> {
  const { before, after, gone } = shift;
  const removals = new Set([...round.groups].filter(([, g]) => g.removed !== undefined).map(([id]) => id));
  if (after !== undefined) {
    for (const id of after.groups) if (before?.groups.has(id) === false) affected.add(id);
    for (const id of before?.groups ?? []) if (!after.groups.has(id)) removals.add(id);
  }
  const sent = [...affected].filter(
    (id) => !removals.has(id) && (after === undefined || after.groups.has(id)),
  );
  const known = sent.flatMap((id) => {
    const props = round.groups.get(id)?.props;
    return props ? [props] : [];
  });
  const unknown = sent.filter((id) => round.groups.get(id)?.props === undefined);
  const props = [...known, ...(await readEach(context, unknown, 'groups'))];
  const flat = await flattenGroups(
    context.edges,
    props.map((raw) => raw.id as string),
  );
  const upserts = props.map((raw) => {
    const members = (flat.get(raw.id as string) ?? []).filter(
      (user) => !gone.has(user) && (after === undefined || after.users.has(user)),
    );
    return upsert('groups', groupItem(raw, members), raw);
  });
  return [...[...removals].map((id) => remove('groups', id)), ...upserts];
}

/** Users or groups read one by one, a few at a time; those Graph no longer has (404) left out. */
async function readEach(
  context: ChangeContext,
  ids: readonly string[],
  collection: 'users' | 'groups',
): Promise<GraphObject[]> {
  const select = collection === 'users' ? context.userSelect : GROUP_SELECT;
  const permission = collection === 'users' ? 'User.Read.All' : 'GroupMember.Read.All';
  const found: GraphObject[] = [];
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const path = query(`${collection}/${encodeURIComponent(id)}`, { $select: select.join(',') });
      const raw = await context.graph.find(path, permission, context.gate);
      if (raw !== undefined) found.push(raw);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.concurrency, queue.length) }, worker));
  return found;
}

function upsert(kind: 'users' | 'groups', item: Record<string, unknown>, raw: GraphObject): SourceChange {
  return { op: 'upsert', kind, item, label: labelOf(raw) };
}

function remove(kind: 'users' | 'groups', id: string): SourceChange {
  return { op: 'remove', kind, id };
}

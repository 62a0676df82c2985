import { MemoryGroupEdges, type DirectMembers } from '../../../domain/group-graph.js';
import type { GroupChange, MemberChange } from './entra-rounds.js';

/**
 * A group's direct members as the bridge keeps them (domain/group-graph.ts): its member users and
 * member groups. Members that are neither (devices, organizational contacts, service principals)
 * are left out — the platform's groups hold users — and counted by type for the read's report.
 */

export interface LeftOut {
  /** Member edges left out, by member type (`device`, `orgContact`…). */
  readonly byType: Map<string, number>;
  /** Told each one: the member's id and type, and the group's label. */
  readonly note: (member: string, type: string, group: string) => void;
}

export function leftOut(note: LeftOut['note'] = () => undefined): LeftOut {
  return { byType: new Map(), note };
}

/** The words a left-out member is reported with. */
export const LEFT_OUT_REASON =
  'neither a user nor a group: left out of the group (platform groups hold users)';

/** A whole round's groups (an initial round: every member listed) as the graph of a full read. */
export function roundEdges(groups: ReadonlyMap<string, GroupChange>, out: LeftOut): MemoryGroupEdges {
  const edges = new MemoryGroupEdges();
  for (const [id, group] of groups) {
    if (group.removed !== undefined) continue;
    const label = typeof group.props?.displayName === 'string' ? group.props.displayName : id;
    edges.set(id, applyMembers({ users: [], groups: [] }, { id, label }, group.members, out));
  }
  return edges;
}

/** A group's direct members after its members' changes (adds and removals) are applied. */
export function applyMembers(
  before: DirectMembers,
  group: { id: string; label: string },
  changes: ReadonlyMap<string, MemberChange>,
  out: LeftOut,
): DirectMembers {
  const users = new Set(before.users);
  const groups = new Set(before.groups);
  for (const [memberId, change] of changes) {
    if (change.removed) {
      users.delete(memberId);
      groups.delete(memberId);
    } else if (change.kind === 'user') users.add(memberId);
    else if (change.kind === 'group' && memberId !== group.id) groups.add(memberId);
    else if (change.kind === 'other') {
      out.byType.set(change.type, (out.byType.get(change.type) ?? 0) + 1);
      out.note(memberId, change.type, group.label);
    }
  }
  return { users: [...users], groups: [...groups] };
}

/** Members left out, in all. */
export function leftOutCount(out: LeftOut): number {
  let total = 0;
  for (const n of out.byType.values()) total += n;
  return total;
}

/**
 * The kept graph's entry listing the users that are soft-deleted (a reserved id, never a Graph
 * object's). Group delta keeps such a user among its groups' members until the hard delete,
 * 30 days on (delta-query-groups.md): the edges stay as Graph states them — a restore brings the
 * memberships back — and flattening leaves these users out meanwhile.
 */
export const SOFT_DELETED = '#soft-deleted';

/** Marks the users some group lists but the users list did not: soft-deleted ones. */
export async function markSoftDeleted(edges: MemoryGroupEdges, listed: ReadonlySet<string>): Promise<void> {
  const gone = new Set<string>();
  for (const members of (await edges.members([...edges.ids()])).values())
    for (const user of members.users) if (!listed.has(user)) gone.add(user);
  edges.set(SOFT_DELETED, { users: [...gone], groups: [] });
}

import { flattenGroups, MemoryGroupEdges, type DirectMembers } from './group-graph.js';
import { SOURCE_BATCH, type SnapshotSink } from './snapshot-sink.js';

/**
 * The groups of a full read, held until every group is read, then sent with their members
 * flattened (SPEC §5.4): a group names its direct members in its source's terms (a DN, an upstream
 * member value), which can be told apart — a user, a group nested in it, something else — only
 * once every user and every group is read. Held are each group's item and member references (groups
 * are a few percent of a directory); the users are the sink's to know (its scratch tables, kept
 * outside the process by a sync), asked a batch of references at a time. A group's references are
 * let go of once resolved, and the flattened members exist for one batch of groups at a time, never
 * for all: what the process holds shrinks from the held references to the graph of ids.
 */
export interface HeldGroup<Member> {
  /** How other groups name it among their members (a DN's key, an upstream id); none: it can be no group's member. */
  readonly key: string | undefined;
  /** Its snapshot item, members left out. */
  readonly item: Readonly<Record<string, unknown>>;
  /** How problems name it (a DN, an upstream id). */
  readonly label: string | undefined;
  /** Its direct members as its source names them; emptied once resolved (the graph has them then). */
  members: readonly Member[];
}

/**
 * Some groups' direct members, resolved: for each group in turn, the ids of its member users and the
 * keys of its member groups among those held (`held`); any other member is dropped.
 */
export type ResolveMembers<Member> = (
  groups: readonly (readonly Member[])[],
  held: (key: string) => boolean,
) => Promise<DirectMembers[]>;

/** Member references resolved per call (LDAP: looked up in the sink's table of users by DN). */
const RESOLVE_BATCH = 5000;

/**
 * Resolves the groups' members, flattens nested groups (cycles cut) and hands the groups to the
 * sink in order. The groups are handed over: their member references are emptied as they are resolved.
 */
export async function sendFlattenedGroups<Member>(
  sink: SnapshotSink,
  groups: readonly HeldGroup<Member>[],
  resolve: ResolveMembers<Member>,
): Promise<void> {
  const edges = await resolveEdges(groups, resolve);
  for (let i = 0; i < groups.length; i += SOURCE_BATCH) {
    const batch = groups.slice(i, i + SOURCE_BATCH);
    const members = await flattenGroups(
      edges,
      batch.map((_, n) => node(i + n)),
    );
    await sink.add(
      'groups',
      batch.map((group, n) => ({ ...group.item, members: members.get(node(i + n)) ?? [] })),
      batch.map((group) => ({ label: group.label })),
    );
  }
}

/**
 * The held groups as a graph whose nodes are their positions: a key two groups share (or none)
 * still leaves each its own members, and a member group is the first group with its key.
 */
async function resolveEdges<Member>(
  groups: readonly HeldGroup<Member>[],
  resolve: ResolveMembers<Member>,
): Promise<MemoryGroupEdges> {
  const nodes = new Map<string, string>();
  groups.forEach(({ key }, at) => {
    if (key !== undefined && !nodes.has(key)) nodes.set(key, node(at));
  });
  const held = (key: string) => nodes.has(key);
  const edges = new MemoryGroupEdges();
  for (let end = 0; end < groups.length;) {
    const start = end;
    for (let references = 0; end < groups.length && references < RESOLVE_BATCH; end++)
      references += groups[end]?.members.length ?? 0;
    const resolved = await resolve(
      groups.slice(start, end).map((group) => group.members),
      held,
    );
    resolved.forEach(({ users, groups: keys }, n) => {
      edges.set(node(start + n), { users, groups: keys.flatMap((key) => nodes.get(key) ?? []) });
      const group = groups[start + n];
      if (group) group.members = [];
    });
  }
  return edges;
}

function node(position: number): string {
  return String(position);
}

/**
 * Nested groups (SPEC §5.4, §5.5): a directory states each group's direct members — users and
 * other groups — while the platform's groups hold only users. A group's platform members are its
 * own users and, transitively, those of every group nested in it; a cycle (A in B, B in A) is cut
 * where a group was already visited. When some groups change, the groups whose flattened members
 * may change are those and every group that contains one of them, up the nesting.
 *
 * The edges come from a port, so that a full read holds them in memory (MemoryGroupEdges) and a
 * change read finds them where the last read left them (store/group-edges.store.ts). Each step
 * asks for a whole level of the walk at once.
 */

/** A group's direct members as its source states them. */
export interface DirectMembers {
  readonly users: readonly string[];
  readonly groups: readonly string[];
}

export interface GroupEdges {
  /** The direct members of these groups; a group it does not hold is absent from the answer. */
  members(groupIds: readonly string[]): Promise<ReadonlyMap<string, DirectMembers>>;
  /** The groups that hold any of these groups as a direct member, by member group. */
  parents(groupIds: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>>;
}

/**
 * An input's graph where the bridge keeps it between reads (store/group-edges.store.ts): a full
 * read replaces it, a change read updates the groups it was told of and flattens from it.
 */
export interface StoredGroupEdges extends GroupEdges {
  /** Whether a full read has left a graph (without one, a change read asks for a full read). */
  exists(): Promise<boolean>;
  replace(edges: MemoryGroupEdges): Promise<void>;
  /** Sets the direct members of these groups; null: the group is gone. */
  update(changes: ReadonlyMap<string, DirectMembers | null>): Promise<void>;
}

/** The users of each group, directly or through nested groups, in first-seen order, without repeats. */
export async function flattenGroups(
  edges: GroupEdges,
  groupIds: readonly string[],
): Promise<Map<string, string[]>> {
  const known = new Map<string, DirectMembers>();
  let frontier = [...new Set(groupIds)];
  // Every group reachable, read one level at a time (each id once, whatever the nesting).
  while (frontier.length > 0) {
    const found = await edges.members(frontier.filter((id) => !known.has(id)));
    for (const [id, members] of found) known.set(id, members);
    const next = new Set<string>();
    for (const id of frontier)
      for (const child of known.get(id)?.groups ?? []) if (!known.has(child)) next.add(child);
    frontier = [...next];
  }
  return new Map(groupIds.map((id) => [id, usersOf(known, id)]));
}

function usersOf(known: ReadonlyMap<string, DirectMembers>, top: string): string[] {
  const users = new Set<string>();
  const visited = new Set<string>([top]);
  const queue = [top];
  for (let at = 0; at < queue.length; at++) {
    const group = known.get(queue[at] as string);
    if (group === undefined) continue;
    for (const user of group.users) users.add(user);
    for (const nested of group.groups) {
      if (visited.has(nested)) continue;
      visited.add(nested);
      queue.push(nested);
    }
  }
  return [...users];
}

/** These groups and every group that contains one of them, directly or through nesting. */
export async function withAncestors(edges: GroupEdges, groupIds: readonly string[]): Promise<Set<string>> {
  const seen = new Set(groupIds);
  let frontier = [...seen];
  while (frontier.length > 0) {
    const parents = await edges.parents(frontier);
    const next: string[] = [];
    for (const list of parents.values()) {
      for (const parent of list) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        next.push(parent);
      }
    }
    frontier = next;
  }
  return seen;
}

/** The edges of a directory read whole, held in memory for the length of the read. */
export class MemoryGroupEdges implements GroupEdges {
  private readonly direct = new Map<string, DirectMembers>();
  private readonly up = new Map<string, Set<string>>();

  /** Sets a group's direct members (replacing those it had). */
  set(groupId: string, members: DirectMembers): void {
    for (const child of this.direct.get(groupId)?.groups ?? []) this.up.get(child)?.delete(groupId);
    this.direct.set(groupId, members);
    for (const child of members.groups) {
      const parents = this.up.get(child) ?? new Set<string>();
      parents.add(groupId);
      this.up.set(child, parents);
    }
  }

  has(groupId: string): boolean {
    return this.direct.has(groupId);
  }

  ids(): IterableIterator<string> {
    return this.direct.keys();
  }

  members(groupIds: readonly string[]): Promise<ReadonlyMap<string, DirectMembers>> {
    const out = new Map<string, DirectMembers>();
    for (const id of groupIds) {
      const members = this.direct.get(id);
      if (members) out.set(id, members);
    }
    return Promise.resolve(out);
  }

  parents(groupIds: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    for (const id of groupIds) {
      const parents = this.up.get(id);
      if (parents && parents.size > 0) out.set(id, [...parents]);
    }
    return Promise.resolve(out);
  }
}

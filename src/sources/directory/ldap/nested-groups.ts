/**
 * Group membership as a directory states it — users and other groups — flattened to users, as the
 * target's groups hold only users: a group's members are its own users and, transitively, those of
 * every group nested in it. Cycles (A in B, B in A) are cut by remembering the groups visited.
 */

export interface GroupLinks {
  /** Ids of the member users. */
  users: readonly string[];
  /** Positions (in the same list) of the member groups. */
  groups: readonly number[];
}

/** The member user ids of each group, in first-seen order, without repeats. */
export function flattenMembers(links: readonly GroupLinks[]): string[][] {
  return links.map((own, index) => {
    if (own.groups.length === 0) return [...new Set(own.users)];
    const members = new Set<string>();
    const visited = new Set<number>([index]);
    const queue: number[] = [index];
    for (let at = 0; at < queue.length; at++) {
      const group = links[queue[at] ?? -1];
      if (group === undefined) continue;
      for (const user of group.users) members.add(user);
      for (const nested of group.groups) {
        if (visited.has(nested)) continue;
        visited.add(nested);
        queue.push(nested);
      }
    }
    return [...members];
  });
}

import { MemoryGroupEdges, type DirectMembers } from '../../../domain/group-graph.js';
import { DIRECTORY, type GoogleApi } from './google-api.js';
import {
  groupNames,
  isGoogleGroup,
  type GoogleGroup,
  type GroupNames,
  type UserGroups,
} from './google-items.js';
import {
  EVERYONE,
  forEachConcurrently,
  noneLeftOut,
  readMembers,
  type LeftOut,
  type Role,
} from './google-members.js';
import { idField, walkList } from './google-pages.js';

/**
 * The customer's groups and their direct members, read whole (groups.list, 200 a page, then
 * members.list of each group, `concurrency` at once): the graph a full read flattens (and leaves
 * to the change reads), and — when a scope or mapping reads membership — each user's groups,
 * directly or through nesting (cycles cut), with the groups it owns or manages directly.
 */

const GROUP_FIELDS = 'nextPageToken,groups(id,email,name,description,directMembersCount,aliases)';

export interface GroupGraph {
  readonly groups: readonly GoogleGroup[];
  readonly edges: MemoryGroupEdges;
  /** The same direct members, by group, for the walks done in memory. */
  readonly direct: ReadonlyMap<string, DirectMembers>;
  readonly leftOut: LeftOut;
  /** Owners and managers, by user (kept only when a scope or mapping reads membership). */
  readonly roles: ReadonlyMap<string, readonly (readonly [string, Role])[]>;
}

export async function readGraph(
  api: GoogleApi,
  membership: boolean,
  signal?: AbortSignal,
): Promise<GroupGraph> {
  const { settings } = api.access;
  const groups: GoogleGroup[] = [];
  const walk = walkList(api, {
    path: `${DIRECTORY}/groups`,
    params: { customer: settings.customer, fields: GROUP_FIELDS },
    itemsKey: 'groups',
    pageSize: 200,
    empty: 'again',
    idOf: idField,
    ...(signal ? { signal } : {}),
  });
  for await (const page of walk) {
    for (const raw of page.items) {
      if (!isGoogleGroup(raw)) throw api.invalid(page.answer.url, 'a group without an id or an address');
      groups.push(raw);
    }
  }
  const ours = new Set(groups.map((g) => g.id));
  const edges = new MemoryGroupEdges();
  const direct = new Map<string, DirectMembers>();
  const leftOut = noneLeftOut();
  const roles = new Map<string, [string, Role][]>();
  await forEachConcurrently(groups, settings.concurrency, async (group) => {
    const members = await readMembers(api, group, (id) => ours.has(id), leftOut, signal);
    const held = { users: members.users, groups: members.groups };
    edges.set(group.id, held);
    direct.set(group.id, held);
    if (!membership) return;
    for (const [user, role] of members.roles) {
      const list = roles.get(user) ?? [];
      list.push([group.id, role]);
      roles.set(user, list);
    }
  });
  return { groups, edges, direct, leftOut, roles };
}

/**
 * Each user's groups as the facts of a full read say them: the groups it is a direct member of,
 * every group above those, and every group that holds everyone (a CUSTOMER member, nested or not).
 */
export class Memberships {
  private readonly direct = new Map<string, string[]>();
  private readonly up = new Map<string, string[]>();
  private readonly above = new Map<string, ReadonlySet<string>>();
  private readonly names = new Map<string, GroupNames>();
  private readonly everyone: ReadonlySet<string>;

  constructor(private readonly graph: GroupGraph) {
    for (const group of graph.groups) {
      this.names.set(group.id, groupNames(group));
      const members = graph.direct.get(group.id);
      for (const user of members?.users ?? []) push(this.direct, user, group.id);
      for (const child of members?.groups ?? []) push(this.up, child, group.id);
    }
    this.everyone = this.closure(EVERYONE);
  }

  /** The groups that hold every user of the account (CUSTOMER members, directly or nested). */
  get everyoneGroups(): ReadonlySet<string> {
    return this.everyone;
  }

  of(userId: string): UserGroups {
    const ids = new Set<string>(this.everyone);
    for (const group of this.direct.get(userId) ?? []) for (const id of this.closure(group)) ids.add(id);
    const email = (id: string) => this.names.get(id)?.email ?? id;
    const roles = this.graph.roles.get(userId) ?? [];
    return {
      groups: [...ids].flatMap((id) => this.names.get(id) ?? []),
      ownerOf: roles.filter(([, role]) => role === 'OWNER').map(([id]) => email(id)),
      managerOf: roles.filter(([, role]) => role === 'MANAGER').map(([id]) => email(id)),
    };
  }

  /** A group and every group above it (without the EVERYONE pseudo-group). */
  private closure(start: string): ReadonlySet<string> {
    const known = this.above.get(start);
    if (known) return known;
    const seen = new Set<string>([start]);
    const queue = [start];
    for (let at = 0; at < queue.length; at++)
      for (const parent of this.up.get(queue[at] as string) ?? [])
        if (!seen.has(parent)) {
          seen.add(parent);
          queue.push(parent);
        }
    seen.delete(EVERYONE);
    this.above.set(start, seen);
    return seen;
  }
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

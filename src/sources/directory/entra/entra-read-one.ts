import type { PolicyKind } from '../../../domain/identity-policy.js';
import type { GroupRef } from '../../../domain/policy-context.js';
import type { OneRead, ReadOne, SourceIdentity } from '../../../domain/source-identity.js';
import {
  GROUP_SELECT,
  groupItem,
  idOf,
  labelOf,
  memberKind,
  query,
  userItem,
  type GraphObject,
} from './entra-items.js';
import { enclosingGroups, readAssigned, type Assigned } from './entra-scope.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * One Entra user or group read now (provision on demand, docs/scope-and-mapping.md), as a full
 * read gives it: a user by object id or userPrincipalName (`GET /users/{id | upn}`); a group by
 * object id, with every user reachable through its nested groups (`/groups/{id}/members`, each
 * nested group once) — where Entra's own provision on demand takes one user, or one group of at
 * most 5 members, and no nested ones. The groups an identity is in come from
 * `/transitiveMemberOf` when the scope or mapping reads membership, or ENTRA_ASSIGNED_TO must say
 * whether it is in scope (assigned, directly or through a group).
 */

export interface ReadOnePlan {
  userSelect: readonly string[];
  assignedTo: string;
  /** Whether the scope or mapping reads group membership (memberOf). */
  membership: boolean;
}

export function entraReadOne(open: () => GraphSession, plan: ReadOnePlan): ReadOne {
  return async (kind: PolicyKind, key, options): Promise<OneRead> => {
    const graph = open();
    const gate: RequestGate = options?.signal ? { signal: options.signal } : {};
    try {
      const assigned = plan.assignedTo === '' ? undefined : await readAssigned(graph, plan.assignedTo, gate);
      const one = { graph, plan, gate, ...(assigned ? { assigned } : {}) };
      return kind === 'users' ? await readUser(one, key) : await readGroup(one, key);
    } finally {
      await graph.close();
    }
  };
}

interface One {
  graph: GraphSession;
  plan: ReadOnePlan;
  gate: RequestGate;
  assigned?: Assigned;
}

async function readUser(one: One, key: string): Promise<OneRead> {
  const path = query(`users/${encodeURIComponent(key)}`, { $select: one.plan.userSelect.join(',') });
  const raw = await one.graph.find(path, 'User.Read.All', one.gate);
  const id = idOf(raw);
  if (raw === undefined || id === undefined)
    return { outcome: 'absent', reason: `Entra ID has no user ${key} (by object id or userPrincipalName)` };
  const groups = one.plan.membership || one.assigned ? await groupsOf(one, 'users', id) : [];
  if (one.assigned && !one.assigned.users.has(id) && !groups.some((g) => one.assigned?.groups.has(g.id)))
    return { outcome: 'excluded', label: labelOf(raw), reason: notAssigned(one.plan.assignedTo) };
  return { outcome: 'found', identity: { id, label: labelOf(raw), item: userItem(raw, groups) } };
}

async function readGroup(one: One, key: string): Promise<OneRead> {
  const path = query(`groups/${encodeURIComponent(key)}`, { $select: GROUP_SELECT.join(',') });
  const raw = await one.graph.find(path, 'GroupMember.Read.All', one.gate);
  const id = idOf(raw);
  if (raw === undefined || id === undefined)
    return { outcome: 'absent', reason: `Entra ID has no group ${key}` };
  if (one.assigned && !one.assigned.groups.has(id)) {
    const enclosing = await groupsOf(one, 'groups', id);
    if (!enclosing.some((g) => one.assigned?.groups.has(g.id)))
      return { outcome: 'excluded', label: labelOf(raw), reason: notAssigned(one.plan.assignedTo) };
  }
  const users = await nestedUsers(one, id);
  const members: SourceIdentity[] = [];
  for (const user of users) {
    const groups = one.plan.membership ? await groupsOf(one, 'users', user.id as string) : [];
    members.push({ id: user.id as string, label: labelOf(user), item: userItem(user, groups) });
  }
  const item = groupItem(
    raw,
    members.map((m) => m.id),
  );
  return { outcome: 'found', identity: { id, label: labelOf(raw), item, members } };
}

/** Every user in the group or a group nested in it, each once; each nested group read once. */
async function nestedUsers(one: One, groupId: string): Promise<GraphObject[]> {
  const users = new Map<string, GraphObject>();
  const seen = new Set([groupId]);
  const queue = [groupId];
  const select = one.plan.userSelect.join(',');
  for (let group = queue.shift(); group !== undefined; group = queue.shift()) {
    const first = query(`groups/${encodeURIComponent(group)}/members`, { $select: select, $top: '999' });
    for await (const page of one.graph.pages(first, 'GroupMember.Read.All', one.gate)) {
      for (const member of page.items as GraphObject[]) {
        const id = idOf(member);
        if (id === undefined) continue;
        const kind = memberKind(member);
        if (kind === 'user' && !users.has(id)) users.set(id, member);
        if (kind === 'group' && !seen.has(id)) {
          seen.add(id);
          queue.push(id);
        }
      }
    }
  }
  return [...users.values()];
}

/** The groups a user or group is in, directly or through nesting. */
function groupsOf(one: One, collection: 'users' | 'groups', id: string): Promise<GroupRef[]> {
  return enclosingGroups(one.graph, collection, id, one.gate);
}

function notAssigned(servicePrincipalId: string): string {
  return `not assigned to the enterprise application ${servicePrincipalId} (ENTRA_ASSIGNED_TO), directly or through a group`;
}

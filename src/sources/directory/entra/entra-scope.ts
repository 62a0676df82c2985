import { createHash } from 'node:crypto';
import { BridgeError, isBridgeError } from '../../../domain/errors.js';
import type { GroupEdges } from '../../../domain/group-graph.js';
import type { GroupRef } from '../../../domain/policy-context.js';
import { idOf, memberKind, memberTypeName, query, type GraphObject } from './entra-items.js';
import type { MemberChange } from './entra-rounds.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * ENTRA_ASSIGNED_TO (SPEC §3): the users and groups assigned to an enterprise application — its
 * service principal's `appRoleAssignedTo` (serviceprincipal-list-approleassignedto.md,
 * Application.Read.All) — as the source's scope, with what Entra's own provisioning leaves out
 * ("can't read or provision users in nested groups", how-provisioning-works.md):
 *
 * - users in scope: those assigned directly, and every user reachable from an assigned group
 *   through its nested groups;
 * - groups in scope: the assigned groups and every group nested in them, so that a group on the
 *   platform only ever holds users in scope.
 *
 * Assignments have no delta query: each change read lists them again (a page of ids) and compares
 * their digest with the watermark's; when they changed, the input is read in full.
 */

export interface Assigned {
  users: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  /** A digest of the assigned principals, kept in the watermark. */
  digest: string;
}

export interface InScope {
  users: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

export async function readAssigned(
  graph: GraphSession,
  servicePrincipalId: string,
  gate: RequestGate,
): Promise<Assigned> {
  const path = `servicePrincipals/${encodeURIComponent(servicePrincipalId)}/appRoleAssignedTo`;
  const first = query(path, { $select: 'principalId,principalType', $top: '999' });
  const users = new Set<string>();
  const groups = new Set<string>();
  try {
    for await (const page of graph.pages(first, 'Application.Read.All', gate)) {
      for (const raw of page.items) {
        const { principalId, principalType } = raw as { principalId?: unknown; principalType?: unknown };
        if (typeof principalId !== 'string') continue;
        if (principalType === 'User') users.add(principalId);
        if (principalType === 'Group') groups.add(principalId);
      }
    }
  } catch (error) {
    throw isBridgeError(error) && error.status === 404 ? noServicePrincipal(servicePrincipalId) : error;
  }
  const listed = [...[...users].map((id) => `u:${id}`), ...[...groups].map((id) => `g:${id}`)].sort();
  const digest = createHash('sha256').update(listed.join('\n')).digest('base64url').slice(0, 22);
  return { users, groups, digest };
}

/** The groups nested in `roots` (and they), and the users in any of them; cycles end the walk. */
export async function reachable(edges: GroupEdges, roots: Iterable<string>): Promise<InScope> {
  const groups = new Set<string>();
  const users = new Set<string>();
  let frontier = [...new Set(roots)];
  for (const id of frontier) groups.add(id);
  while (frontier.length > 0) {
    const found = await edges.members(frontier);
    const next: string[] = [];
    for (const members of found.values()) {
      for (const user of members.users) users.add(user);
      for (const group of members.groups) {
        if (groups.has(group)) continue;
        groups.add(group);
        next.push(group);
      }
    }
    frontier = next;
  }
  return { users, groups };
}

/** What is in scope: the assigned users, and what the assigned groups reach. */
export async function inScope(edges: GroupEdges, assigned: Assigned): Promise<InScope> {
  const found = await reachable(edges, assigned.groups);
  for (const user of assigned.users) (found.users as Set<string>).add(user);
  return found;
}

/** The groups a user or group is in, directly or through nesting (`/transitiveMemberOf`). */
export async function enclosingGroups(
  graph: GraphSession,
  collection: 'users' | 'groups',
  id: string,
  gate: RequestGate,
): Promise<GroupRef[]> {
  const first = query(`${collection}/${encodeURIComponent(id)}/transitiveMemberOf`, {
    $select: 'id,displayName',
    $top: '999',
  });
  const permission = collection === 'users' ? 'User.Read.All' : 'GroupMember.Read.All';
  const groups: GroupRef[] = [];
  for await (const page of graph.pages(first, permission, gate)) {
    for (const raw of page.items as GraphObject[]) {
      const groupId = idOf(raw);
      if (groupId === undefined || memberKind(raw) !== 'group') continue;
      groups.push({ id: groupId, name: typeof raw.displayName === 'string' ? raw.displayName : groupId });
    }
  }
  return groups;
}

/** A group's direct members as Graph lists them now (`/groups/{id}/members`): users and groups. */
export async function directMembers(
  graph: GraphSession,
  groupId: string,
  gate: RequestGate,
): Promise<ReadonlyMap<string, MemberChange>> {
  const first = query(`groups/${encodeURIComponent(groupId)}/members`, { $select: 'id', $top: '999' });
  const members = new Map<string, MemberChange>();
  for await (const page of graph.pages(first, 'GroupMember.Read.All', gate)) {
    for (const raw of page.items as GraphObject[]) {
      const id = idOf(raw);
      if (id !== undefined)
        members.set(id, { kind: memberKind(raw), type: memberTypeName(raw), removed: false });
    }
  }
  return members;
}

function noServicePrincipal(id: string): BridgeError {
  return new BridgeError(
    'source_invalid',
    `ENTRA_ASSIGNED_TO: the tenant has no enterprise application (service principal) ${id}: give the ` +
      "Object ID on the enterprise application's Overview page, not the app registration's client id",
  );
}

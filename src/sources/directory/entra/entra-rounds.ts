import { BridgeError } from '../../../domain/errors.js';
import { idOf, memberKind, memberTypeName, type GraphObject, type MemberKind } from './entra-items.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * One delta round of `/users/delta` or `/groups/delta` (delta-query-overview.md, user-delta.md,
 * group-delta.md), read to its delta link and merged into one net state per object: the server
 * chooses the page size, a group's `members@delta` may be split over several pages (the group comes
 * again with the next members), an object may come twice, and pages come in no promised order. An
 * object's last word wins — `@removed` (`changed`: soft-deleted, restorable for 30 days;
 * `deleted`: gone) or its properties — and so does each member's (`@removed` in members@delta is a
 * removal). Property values are Graph's current ones (a replayed change brings current values), so
 * the merge is idempotent.
 */

export type RemovedReason = 'changed' | 'deleted';

export interface UserRound {
  /** Each user's last word: its properties, or why it was removed. */
  users: Map<string, GraphObject | { removed: RemovedReason }>;
  deltaLink: string;
  entries: number;
}

export interface MemberChange {
  kind: MemberKind;
  /** `user`, `group`, `device`, `orgContact`, `servicePrincipal`… */
  type: string;
  removed: boolean;
}

export interface GroupChange {
  removed?: RemovedReason;
  /** The group's properties as last given (absent when it came only as a removal). */
  props?: GraphObject;
  /** Its members' changes; in an initial round, every member. */
  members: Map<string, MemberChange>;
}

export interface GroupRound {
  groups: Map<string, GroupChange>;
  deltaLink: string;
  entries: number;
}

const USER_ADDED: MemberChange = Object.freeze({ kind: 'user', type: 'user', removed: false });
const GROUP_ADDED: MemberChange = Object.freeze({ kind: 'group', type: 'group', removed: false });

export async function readUserRound(
  graph: GraphSession,
  first: string,
  gate: RequestGate,
): Promise<UserRound> {
  const users = new Map<string, GraphObject | { removed: RemovedReason }>();
  let entries = 0;
  for await (const page of graph.pages(first, 'User.Read.All', gate)) {
    for (const raw of page.items) {
      const id = idOf(raw);
      if (id === undefined) continue;
      entries++;
      const object = raw as GraphObject;
      const removed = removedReason(object);
      users.set(id, removed === undefined ? object : { removed });
    }
    if (page.deltaLink !== undefined) return { users, deltaLink: page.deltaLink, entries };
  }
  throw noDeltaLink(first);
}

export async function readGroupRound(
  graph: GraphSession,
  first: string,
  gate: RequestGate,
): Promise<GroupRound> {
  const groups = new Map<string, GroupChange>();
  let entries = 0;
  for await (const page of graph.pages(first, 'GroupMember.Read.All', gate)) {
    for (const raw of page.items) {
      const id = idOf(raw);
      if (id === undefined) continue;
      entries++;
      mergeGroup(groups, id, raw as GraphObject);
    }
    if (page.deltaLink !== undefined) return { groups, deltaLink: page.deltaLink, entries };
  }
  throw noDeltaLink(first);
}

function mergeGroup(groups: Map<string, GroupChange>, id: string, object: GraphObject): void {
  const held = groups.get(id) ?? { members: new Map<string, MemberChange>() };
  groups.set(id, held);
  const removed = removedReason(object);
  if (removed !== undefined) {
    held.removed = removed;
    return;
  }
  delete held.removed;
  const { 'members@delta': members, ...props } = object;
  held.props = { ...held.props, ...props };
  if (!Array.isArray(members)) return;
  for (const member of members as unknown[]) {
    const memberId = idOf(member);
    if (memberId === undefined) continue;
    held.members.set(memberId, memberChange(member as GraphObject));
  }
}

function memberChange(member: GraphObject): MemberChange {
  const kind = memberKind(member);
  const removed = member['@removed'] !== undefined;
  if (!removed && kind === 'user') return USER_ADDED;
  if (!removed && kind === 'group') return GROUP_ADDED;
  return { kind, type: memberTypeName(member), removed };
}

function removedReason(object: GraphObject): RemovedReason | undefined {
  const removed = object['@removed'];
  if (typeof removed !== 'object' || removed === null) return undefined;
  return (removed as { reason?: unknown }).reason === 'deleted' ? 'deleted' : 'changed';
}

/** A round whose pages ended without a delta link (a next link is always followed). */
function noDeltaLink(first: string): BridgeError {
  const route = new URL(first, 'https://graph.invalid/v1.0/').pathname;
  return new BridgeError('source_invalid', `Microsoft Graph ended a ${route} round without a delta link`);
}

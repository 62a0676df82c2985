import { diffGroup, type ObservedGroup } from './group-diff.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from './identity.js';
import { diffUser, type ObservedUser } from './user-diff.js';

/**
 * The plan of a full reconciliation (SPEC §6), decided one chunk of identities at a time from what
 * the caller looked up for them: for each desired identity, the resource it matches on the target
 * and what must change; for each managed identity no longer desired, whether to deprovision it.
 * Pure: it compares what it is given and sends nothing. The caller walks the source and the stored
 * identities in chunks (sync/sync-merge.ts), keeping across chunks only what it must (which
 * resources earlier matches claimed, the users' target ids) outside the process.
 */

/** What the bridge knows of an identity before the sync: its target id and whether it manages it. */
export interface Known {
  targetId?: string;
  managed: boolean;
  /** The externalId of a create whose answer was lost: the resource may exist unrecorded. */
  pendingCreate?: string;
}

export type PlannedAction = 'create' | 'update' | 'adopt' | 'deprovision';

export interface PlannedChange {
  kind: IdentityKind;
  id: string;
  action: PlannedAction;
  targetId?: string;
  /** Managed attributes that differ (updates). */
  attributes?: string[];
  /** What the listing showed: the match, or null when nothing matched. */
  observed: ObservedUser | ObservedGroup | null;
}

export interface KindCounts {
  create: number;
  update: number;
  deprovision: number;
  unchanged: number;
}

/** A listed resource offered as a match, and whether a match earlier in the plan took it. */
export interface Candidate<R> {
  resource: R;
  claimed: boolean;
}

/** One identity's decision. */
export interface Decision {
  counted: 'create' | 'update' | 'unchanged';
  /** The change a reconcile run makes; absent when the target already matches. */
  change?: PlannedChange;
  /** An unchanged match the bridge has no target id for: recorded as managed, no run needed. */
  adoption?: { kind: IdentityKind; id: string; targetId: string };
  /** The target id matched, if any (group members are compared through the users' ones). */
  matched?: string;
  /** Group updates: the target user ids the update takes out of the group. */
  removedMembers?: string[];
}

/**
 * Matching (SPEC §6): the first candidate — by the recorded target id, then externalId, then
 * userName / displayName — that no earlier identity of the plan claimed; `claimed` gets it.
 */
export function pickMatch<R extends { id: string }>(
  candidates: readonly (Candidate<R> | undefined)[],
  claimed: Set<string>,
): R | undefined {
  for (const candidate of candidates) {
    if (!candidate || candidate.claimed || claimed.has(candidate.resource.id)) continue;
    claimed.add(candidate.resource.id);
    return candidate.resource;
  }
  return undefined;
}

export function planUser(
  user: DesiredUser,
  known: Known | undefined,
  found: ObservedUser | undefined,
): Decision {
  return decide('user', user.id, known, found, found ? diffUser(user, found).attributes : undefined);
}

/**
 * A group: its members are compared as target user ids (`memberTargetIds`: members not desired
 * as users left out, those still to be created as `pending:<id>`, which match nothing yet).
 */
export function planGroup(
  group: DesiredGroup,
  memberTargetIds: readonly string[],
  known: Known | undefined,
  found: ObservedGroup | undefined,
): Decision {
  const diff = found ? diffGroup(group, memberTargetIds, found) : undefined;
  const decision = decide('group', group.id, known, found, diff?.attributes);
  if (decision.counted === 'update' && diff && diff.removed.length > 0)
    decision.removedMembers = diff.removed;
  return decision;
}

/** A group member as the comparison needs it: its target id, `pending:<id>`, or left out (undefined). */
export function memberTargetId(
  member: string,
  user: { desired: boolean; targetId?: string } | undefined,
): string | undefined {
  if (!user?.desired) return undefined;
  return user.targetId ?? `pending:${member}`;
}

function decide(
  kind: IdentityKind,
  id: string,
  known: Known | undefined,
  found: ObservedUser | ObservedGroup | undefined,
  attributes: string[] | undefined,
): Decision {
  if (!found) return { counted: 'create', change: { kind, id, action: 'create', observed: null } };
  const matched = found.id;
  if (attributes && attributes.length > 0) {
    const change: PlannedChange = {
      kind,
      id,
      action: 'update',
      targetId: matched,
      attributes,
      observed: found,
    };
    return { counted: 'update', change, matched };
  }
  if (!known?.targetId) return { counted: 'unchanged', adoption: { kind, id, targetId: matched }, matched };
  // Recorded for another resource (deleted out of band, say), or not managed: a run sorts it out.
  if (known.targetId !== matched || !known.managed) {
    const change: PlannedChange = { kind, id, action: 'adopt', targetId: matched, observed: found };
    return { counted: 'unchanged', change, matched };
  }
  return { counted: 'unchanged', matched };
}

/**
 * Where a managed identity that is no longer desired is looked for in the listing: by its target
 * id, or — a create whose answer was lost — by the externalId that create sent.
 */
export function deprovisionLookup(known: Known): { targetId: string } | { externalId: string } | undefined {
  if (known.managed && known.targetId) return { targetId: known.targetId };
  if (known.pendingCreate && !known.targetId) return { externalId: known.pendingCreate };
  return undefined;
}

/**
 * A managed identity no longer desired and still on the target is deprovisioned: users while still
 * active (DEPROVISION=deactivate) or at all (delete); groups are deleted.
 */
export function planDeprovision(
  kind: IdentityKind,
  id: string,
  resource: ObservedUser | ObservedGroup | undefined,
  deprovision: 'deactivate' | 'delete',
): PlannedChange | undefined {
  if (!resource) return undefined;
  if (kind === 'user' && deprovision === 'deactivate' && (resource as ObservedUser).active === false)
    return undefined;
  return { kind, id, action: 'deprovision', targetId: resource.id, observed: resource };
}

export const emptyCounts = (): KindCounts => ({ create: 0, update: 0, deprovision: 0, unchanged: 0 });

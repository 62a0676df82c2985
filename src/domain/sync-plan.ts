import { diffGroup, type ObservedGroup } from './group-diff.js';
import { targetExternalId, type DesiredGroup, type DesiredUser, type IdentityKind } from './identity.js';
import { diffUser, type ObservedUser } from './user-diff.js';

/**
 * The plan of a full reconciliation (SPEC §6): for each desired identity, what the target holds
 * and what must change; for each managed identity no longer desired, whether to deprovision it.
 * Pure: it compares lists already read, and sends nothing.
 */

/** What the bridge knows of an identity before the sync: its target id and whether it manages it. */
export interface Known {
  targetId?: string;
  managed: boolean;
  /** The externalId of a create whose answer was lost: the resource may exist unrecorded. */
  pendingCreate?: string;
}

export interface PlanInput {
  users: readonly DesiredUser[];
  groups: readonly DesiredGroup[];
  knownUsers: ReadonlyMap<string, Known>;
  knownGroups: ReadonlyMap<string, Known>;
  targetUsers: readonly ObservedUser[];
  targetGroups: readonly ObservedGroup[];
  deprovision: 'deactivate' | 'delete';
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
  /** Group updates: the members the update removes on the target. */
  removedMembers?: RemovedMember[];
}

/** A member a group update removes, named as far as the bridge and the listing know it. */
export interface RemovedMember {
  targetId: string;
  /** The source id of the user the bridge knows for this target user. */
  id?: string;
  /** The target user's userName, when the listing has the user. */
  userName?: string;
}

export interface KindCounts {
  create: number;
  update: number;
  deprovision: number;
  unchanged: number;
}

export interface SyncPlan {
  /** Creates, updates and deprovisions, users first. */
  changes: PlannedChange[];
  /** Unchanged identities matching a target resource while the bridge has no target id for them. */
  adoptions: { kind: IdentityKind; id: string; targetId: string }[];
  counts: { users: KindCounts; groups: KindCounts };
  /** Target users matched by no desired identity and not managed: left alone. */
  unmanagedUsers: number;
}

interface Matcher<R extends { id: string }> {
  byId: Map<string, R>;
  byExternalId: Map<string, R>;
  byName: Map<string, R>;
  claimed: Set<string>;
}

function matcher<R extends { id: string; externalId?: string | null }>(
  resources: readonly R[],
  name: (r: R) => string,
): Matcher<R> {
  const m: Matcher<R> = { byId: new Map(), byExternalId: new Map(), byName: new Map(), claimed: new Set() };
  for (const r of resources) {
    m.byId.set(r.id, r);
    if (r.externalId) m.byExternalId.set(r.externalId, r);
    m.byName.set(name(r).toLowerCase(), r);
  }
  return m;
}

/** Matching (SPEC §6): the recorded target id, then externalId, then userName / displayName. */
function match<R extends { id: string }>(
  m: Matcher<R>,
  known: Known | undefined,
  externalId: string,
  name: string,
) {
  const candidates = [
    known?.targetId ? m.byId.get(known.targetId) : undefined,
    m.byExternalId.get(externalId),
    m.byName.get(name.toLowerCase()),
  ];
  const found = candidates.find((r) => r !== undefined && !m.claimed.has(r.id));
  if (found) m.claimed.add(found.id);
  return found;
}

const emptyCounts = (): KindCounts => ({ create: 0, update: 0, deprovision: 0, unchanged: 0 });

export function planSync(input: PlanInput): SyncPlan {
  const plan: SyncPlan = {
    changes: [],
    adoptions: [],
    counts: { users: emptyCounts(), groups: emptyCounts() },
    unmanagedUsers: 0,
  };
  const users = matcher(input.targetUsers, (u) => u.userName);
  const userTargetIds = new Map<string, string>();
  for (const user of input.users) {
    const known = input.knownUsers.get(user.id);
    const found = match(users, known, targetExternalId(user), user.userName);
    if (found) userTargetIds.set(user.id, found.id);
    const diff = found ? diffUser(user, found) : undefined;
    record(plan, 'user', user.id, known, found, diff?.attributes);
  }
  planDeprovisions(plan, 'user', input.knownUsers, new Set(input.users.map((u) => u.id)), users, (r) =>
    input.deprovision === 'delete' ? true : (r as ObservedUser).active !== false,
  );
  const managedTargets = managedTargetIds(input.knownUsers);
  plan.unmanagedUsers = input.targetUsers.filter(
    (u) => !users.claimed.has(u.id) && !managedTargets.has(u.id),
  ).length;

  planGroups(plan, input, users, userTargetIds);
  return plan;
}

/** Groups: creates and updates (with the members an update removes, named), then deletions. */
function planGroups(
  plan: SyncPlan,
  input: PlanInput,
  users: Matcher<ObservedUser>,
  userTargetIds: ReadonlyMap<string, string>,
): void {
  const groups = matcher(input.targetGroups, (g) => g.displayName);
  const desiredUsers = new Set(input.users.map((u) => u.id));
  const sourceIds = sourceIdsByTarget(input.knownUsers, userTargetIds);
  const memberName = (targetId: string): RemovedMember => {
    const id = sourceIds.get(targetId);
    const userName = users.byId.get(targetId)?.userName;
    return { targetId, ...(id === undefined ? {} : { id }), ...(userName === undefined ? {} : { userName }) };
  };
  for (const group of input.groups) {
    const known = input.knownGroups.get(group.id);
    const found = match(groups, known, targetExternalId(group), group.displayName);
    // Members not desired as users are left out (as the reconciler does); members still to be
    // created cannot match anything yet.
    const memberIds = group.members
      .filter((m) => desiredUsers.has(m))
      .map((m) => userTargetIds.get(m) ?? `pending:${m}`);
    const diff = found ? diffGroup(group, memberIds, found) : undefined;
    const change = record(plan, 'group', group.id, known, found, diff?.attributes);
    if (change?.action === 'update' && diff && diff.removed.length > 0)
      change.removedMembers = diff.removed.map(memberName);
  }
  planDeprovisions(
    plan,
    'group',
    input.knownGroups,
    new Set(input.groups.map((g) => g.id)),
    groups,
    () => true,
  );
}

function record(
  plan: SyncPlan,
  kind: IdentityKind,
  id: string,
  known: Known | undefined,
  found: ObservedUser | ObservedGroup | undefined,
  attributes: string[] | undefined,
): PlannedChange | undefined {
  const counts = kind === 'user' ? plan.counts.users : plan.counts.groups;
  if (!found) {
    counts.create++;
    plan.changes.push({ kind, id, action: 'create', observed: null });
  } else if (attributes && attributes.length > 0) {
    counts.update++;
    const change: PlannedChange = {
      kind,
      id,
      action: 'update',
      targetId: found.id,
      attributes,
      observed: found,
    };
    plan.changes.push(change);
    return change;
  } else {
    counts.unchanged++;
    if (!known?.targetId) plan.adoptions.push({ kind, id, targetId: found.id });
    // Recorded for another resource (deleted out of band, say): a run sorts the mapping out.
    else if (known.targetId !== found.id || !known.managed) {
      plan.changes.push({ kind, id, action: 'adopt', targetId: found.id, observed: found });
    }
  }
  return undefined;
}

/**
 * Managed identities that are no longer desired and still present (and active) on the target, and
 * those whose create was sent but never answered, found by the externalId it carried.
 */
function planDeprovisions(
  plan: SyncPlan,
  kind: IdentityKind,
  known: ReadonlyMap<string, Known>,
  desired: ReadonlySet<string>,
  target: Matcher<ObservedUser | ObservedGroup>,
  stillThere: (resource: ObservedUser | ObservedGroup) => boolean,
): void {
  const counts = kind === 'user' ? plan.counts.users : plan.counts.groups;
  for (const [id, entry] of known) {
    if (desired.has(id)) continue;
    const resource =
      entry.managed && entry.targetId
        ? target.byId.get(entry.targetId)
        : entry.pendingCreate && !entry.targetId
          ? target.byExternalId.get(entry.pendingCreate)
          : undefined;
    if (!resource || !stillThere(resource)) continue;
    counts.deprovision++;
    plan.changes.push({ kind, id, action: 'deprovision', targetId: resource.id, observed: resource });
  }
}

/** Target user id → source id, from the recorded mappings and this plan's matches. */
function sourceIdsByTarget(
  known: ReadonlyMap<string, Known>,
  matched: ReadonlyMap<string, string>,
): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [id, entry] of known) if (entry.targetId) ids.set(entry.targetId, id);
  for (const [id, targetId] of matched) ids.set(targetId, id);
  return ids;
}

function managedTargetIds(known: ReadonlyMap<string, Known>): Set<string> {
  const ids = new Set<string>();
  for (const entry of known.values()) if (entry.managed && entry.targetId) ids.add(entry.targetId);
  return ids;
}

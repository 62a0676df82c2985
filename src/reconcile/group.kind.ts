import { diffGroup, groupBody } from '../domain/group-diff.js';
import type { DesiredGroup } from '../domain/identity.js';
import type { IdentityKindRules, Intent } from './identity-kind.js';
import {
  decision,
  type ReconcileDeps,
  type ReconcileResult,
  type ReconcileRun,
} from './reconcile-context.js';
import { reconcileIdentity } from './reconcile-identity.js';
import { deleteTarget } from './platform-writes.js';

/**
 * Groups: matched by externalId, then displayName; their members are the desired member users that
 * have a target id. Members not provisioned yet are enqueued first, and enqueue the group again
 * once they have a target id. A group no longer desired is deleted.
 */
export const groupKind: IdentityKindRules<'group'> = {
  kind: 'group',
  readState: (deps, id) => deps.state.groupState(id),
  nameAttribute: 'displayName',
  name: (desired) => desired.displayName,
  intend: groupIntent,
  deprovision: (deps, { id, targetId }, run) => deleteTarget(deps, 'group', id, targetId, run),
};

export function reconcileGroup(deps: ReconcileDeps, id: string, run: ReconcileRun): Promise<ReconcileResult> {
  return reconcileIdentity(deps, groupKind, id, run);
}

async function groupIntent(
  deps: ReconcileDeps,
  desired: DesiredGroup,
  run: ReconcileRun,
): Promise<Intent<'group'>> {
  const members = await resolveMembers(deps, desired, run);
  const body = groupBody(desired, members.targetIds);
  return {
    body,
    // Every managed attribute is in the body, the members [] included.
    replace: (current) => ({ ...current, ...body }),
    diff: (observed) => {
      const diff = diffGroup(desired, members.targetIds, observed);
      const detail = { added: diff.added.length, removed: diff.removed.length };
      return { attributes: diff.attributes, patches: diff.requests, detail };
    },
    createDetail: { members: members.targetIds.length },
    ...(members.waiting.length > 0 ? { waitingFor: members.waiting.length } : {}),
  };
}

interface Members {
  /** Target ids of the members that are provisioned. */
  targetIds: string[];
  /** Desired members without a target id yet. */
  waiting: string[];
}

/** A full sync provisions every user before any group, so it needs no members enqueued. */
async function resolveMembers(
  deps: ReconcileDeps,
  desired: DesiredGroup,
  run: ReconcileRun,
): Promise<Members> {
  const targets = await deps.state.userTargets(desired.members);
  const members: Members = { targetIds: [], waiting: [] };
  for (const [userId, user] of targets) {
    if (user.desired && user.targetId) members.targetIds.push(user.targetId);
    // A parked member is not provisioned until an admin resolves its conflict: nothing to wait for.
    else if (user.desired && !user.parked) members.waiting.push(userId);
  }
  if (members.waiting.length > 0 && !run.syncId) {
    decision(run, 'provision-members-first', { count: members.waiting.length });
    await deps.enqueue(members.waiting.map((userId) => ({ kind: 'user' as const, id: userId })));
  }
  return members;
}

import { BridgeError, isBridgeError } from '../domain/errors.js';
import { diffGroup, groupBody, type ObservedGroup } from '../domain/group-diff.js';
import { targetExternalId, type DesiredGroup } from '../domain/identity.js';
import type { IdentityState } from '../store/reconcile-state.store.js';
import { adoptOrRefuse, claimLostCreate, lookUp, observe, replaceManaged, type Lookup } from './matching.js';
import {
  decision,
  retryWhenTargetGone,
  type ReconcileDeps,
  type ReconcileResult,
  type ReconcileRun,
} from './reconcile-context.js';

interface Members {
  /** Target ids of the members that are provisioned. */
  targetIds: string[];
  /** Desired members without a target id yet. */
  waiting: string[];
}

/**
 * Makes the target's group match: displayName, externalId and members, where members are the
 * desired member users that have a target id. Members not provisioned yet are enqueued first; they
 * enqueue this group again once they have a target id. A group no longer desired is deleted.
 */
export async function reconcileGroup(
  deps: ReconcileDeps,
  id: string,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  return retryWhenTargetGone(deps, { kind: 'group', id }, run, async () => {
    const state = await deps.state.groupState(id);
    if (!state.desired) return deleteGroup(deps, id, state, run);
    return applyGroup(deps, state.desired, state, run);
  });
}

async function applyGroup(
  deps: ReconcileDeps,
  desired: DesiredGroup,
  state: IdentityState<DesiredGroup>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const members = await resolveMembers(deps, desired, run);
  const sighting = await observe(deps, 'group', desired.id, state, run);
  let observed = sighting.resource;
  let adopted = sighting.adopted;
  if (!observed && !sighting.absent) {
    observed = await lookUp(deps, 'group', groupLookups(desired), run);
    if (observed) {
      await adoptOrRefuse(deps, 'group', desired.id, observed.id, run);
      adopted = true;
    }
  }
  const waitingFor = members.waiting.length > 0 ? { waitingFor: members.waiting.length } : {};
  if (!observed) return { ...(await createGroup(deps, desired, members, run)), ...waitingFor };
  const result = await updateGroup(deps, desired, members, observed, run);
  return {
    ...result,
    ...(adopted && result.action === 'unchanged' ? { action: 'adopted' } : {}),
    ...waitingFor,
  };
}

function groupLookups(desired: DesiredGroup): Lookup[] {
  return [
    { attribute: 'externalId', value: targetExternalId(desired) },
    { attribute: 'displayName', value: desired.displayName },
  ];
}

async function resolveMembers(
  deps: ReconcileDeps,
  desired: DesiredGroup,
  run: ReconcileRun,
): Promise<Members> {
  const targets = await deps.state.userTargets(desired.members);
  const members: Members = { targetIds: [], waiting: [] };
  for (const [userId, user] of targets) {
    if (user.desired && user.targetId) members.targetIds.push(user.targetId);
    else if (user.desired) members.waiting.push(userId);
  }
  if (members.waiting.length > 0 && !run.syncId) {
    decision(run, 'provision-members-first', { count: members.waiting.length });
    await deps.enqueue(members.waiting.map((userId) => ({ kind: 'user' as const, id: userId })));
  }
  return members;
}

async function createGroup(
  deps: ReconcileDeps,
  desired: DesiredGroup,
  members: Members,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  decision(run, 'create', { members: members.targetIds.length });
  await deps.state.markCreating('group', desired.id, targetExternalId(desired));
  try {
    const created = await deps.target.create('group', groupBody(desired, members.targetIds), run.trace);
    await deps.state.setTarget('group', desired.id, created.id);
    return { action: 'created', targetId: created.id };
  } catch (error) {
    if (!isBridgeError(error, 'target_conflict') || error.retryable) throw error;
    decision(run, 'conflict-on-create', { detail: error.detail });
    const found = await lookUp(deps, 'group', groupLookups(desired), run);
    if (!found) {
      throw new BridgeError(
        'target_conflict',
        'The platform reports a conflict but no matching group was found',
        {
          retryable: true,
          detail: error.detail,
          status: 409,
        },
      );
    }
    await adoptOrRefuse(deps, 'group', desired.id, found.id, run);
    const full = (await deps.target.get('group', found.id, run.trace)) ?? found;
    const result = await updateGroup(deps, desired, members, full, run);
    return result.action === 'unchanged' ? { ...result, action: 'adopted' } : result;
  }
}

async function updateGroup(
  deps: ReconcileDeps,
  desired: DesiredGroup,
  members: Members,
  observed: ObservedGroup,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const diff = diffGroup(desired, members.targetIds, observed);
  if (diff.attributes.length === 0) {
    decision(run, 'unchanged', { targetId: observed.id });
    return { action: 'unchanged', targetId: observed.id };
  }
  decision(run, 'update', {
    targetId: observed.id,
    attributes: diff.attributes,
    added: diff.added.length,
    removed: diff.removed.length,
  });
  const settings = await deps.target.serviceProviderConfig(run.trace);
  if (settings.patchSupported) {
    for (const operations of diff.requests)
      await deps.target.patch('group', observed.id, operations, run.trace);
  } else {
    await replaceManaged(deps, 'group', observed.id, groupBody(desired, members.targetIds), run);
  }
  return { action: 'updated', targetId: observed.id, changed: diff.attributes };
}

async function deleteGroup(
  deps: ReconcileDeps,
  id: string,
  state: IdentityState<DesiredGroup>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  state = await claimLostCreate(deps, 'group', id, state, run);
  if (!state.managed || !state.targetId) {
    decision(run, 'nothing-to-delete');
    return { action: 'unchanged' };
  }
  decision(run, 'delete', { targetId: state.targetId });
  await deps.target.delete('group', state.targetId, run.trace);
  await deps.state.forgetTarget('group', id, true);
  return { action: 'deleted', targetId: state.targetId };
}

import { BridgeError, isBridgeError } from '../domain/errors.js';
import { targetExternalId, type DesiredUser } from '../domain/identity.js';
import { diffUser, userBody, type ObservedUser } from '../domain/user-diff.js';
import type { IdentityState } from '../store/reconcile-state.store.js';
import { adoptOrRefuse, claimLostCreate, lookUp, observe, replaceManaged, type Lookup } from './matching.js';
import {
  decision,
  retryWhenTargetGone,
  type ReconcileDeps,
  type ReconcileResult,
  type ReconcileRun,
} from './reconcile-context.js';

/**
 * Makes the target's user match the desired state (SPEC §6), reading both afresh (level-triggered).
 * A write that meets a 404 (deleted meanwhile) forgets the target id and starts over, at most twice.
 */
export async function reconcileUser(
  deps: ReconcileDeps,
  id: string,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  return retryWhenTargetGone(deps, { kind: 'user', id }, run, async () => {
    const state = await deps.state.userState(id);
    if (!state.desired) return deprovisionUser(deps, id, state, run);
    return applyUser(deps, state.desired, state, run);
  });
}

async function applyUser(
  deps: ReconcileDeps,
  desired: DesiredUser,
  state: IdentityState<DesiredUser>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const sighting = await observe(deps, 'user', desired.id, state, run);
  let observed = sighting.resource;
  let adopted = sighting.adopted;
  if (!observed && !sighting.absent) {
    observed = await lookUp(deps, 'user', userLookups(desired), run);
    if (observed) {
      await adoptOrRefuse(deps, 'user', desired.id, observed.id, run);
      adopted = true;
    }
  }
  if (!observed) return createUser(deps, desired, run);
  const diff = diffUser(desired, observed);
  if (adopted) await enqueueGroupsOf(deps, desired.id, run);
  if (diff.attributes.length === 0) {
    if (!adopted) decision(run, 'unchanged', { targetId: observed.id });
    return { action: adopted ? 'adopted' : 'unchanged', targetId: observed.id };
  }
  decision(run, 'update', { targetId: observed.id, attributes: diff.attributes });
  const settings = await deps.target.serviceProviderConfig(run.trace);
  if (settings.patchSupported) await deps.target.patch('user', observed.id, diff.operations, run.trace);
  else await replaceManaged(deps, 'user', observed.id, userBody(desired), run);
  return { action: 'updated', targetId: observed.id, changed: diff.attributes };
}

/** Matching (SPEC §6): externalId first, then userName. */
function userLookups(desired: DesiredUser): Lookup[] {
  return [
    { attribute: 'externalId', value: targetExternalId(desired) },
    { attribute: 'userName', value: desired.userName },
  ];
}

async function createUser(
  deps: ReconcileDeps,
  desired: DesiredUser,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  decision(run, 'create');
  try {
    const created = await deps.target.create('user', userBody(desired), run.trace);
    // Recorded before anything else, so that a crash from here on cannot lead to a second create.
    await deps.state.setTarget('user', desired.id, created.id);
    await enqueueGroupsOf(deps, desired.id, run);
    return { action: 'created', targetId: created.id };
  } catch (error) {
    if (!isBridgeError(error, 'target_conflict') || error.retryable) throw error;
    // 409: it exists after all (a lost response, or created meanwhile): adopt it, never duplicate.
    decision(run, 'conflict-on-create', { detail: error.detail });
    const found = await lookUp(deps, 'user', userLookups(desired), run);
    if (!found) {
      throw new BridgeError(
        'target_conflict',
        'The platform reports a conflict but no matching user was found',
        {
          retryable: true,
          detail: error.detail,
          status: 409,
        },
      );
    }
    await adoptOrRefuse(deps, 'user', desired.id, found.id, run);
    await enqueueGroupsOf(deps, desired.id, run);
    const diff = diffUser(desired, found);
    if (diff.attributes.length === 0) return { action: 'adopted', targetId: found.id };
    const settings = await deps.target.serviceProviderConfig(run.trace);
    if (settings.patchSupported) await deps.target.patch('user', found.id, diff.operations, run.trace);
    else await replaceManaged(deps, 'user', found.id, userBody(desired), run);
    return { action: 'updated', targetId: found.id, changed: diff.attributes };
  }
}

async function deprovisionUser(
  deps: ReconcileDeps,
  id: string,
  state: IdentityState<DesiredUser>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  state = await claimLostCreate(deps, 'user', id, state, run);
  if (!state.managed || !state.targetId) {
    decision(run, 'nothing-to-deprovision');
    return { action: 'unchanged' };
  }
  if (deps.deprovision === 'delete') {
    decision(run, 'delete', { targetId: state.targetId });
    await deps.target.delete('user', state.targetId, run.trace);
    await deps.state.forgetTarget('user', id, true);
    return { action: 'deleted', targetId: state.targetId };
  }
  const { resource: observed } = await observe(deps, 'user', id, state, run);
  if (!observed) {
    decision(run, 'already-gone');
    await deps.state.forgetTarget('user', id, true);
    return { action: 'unchanged' };
  }
  if (observed.active === false) {
    decision(run, 'already-inactive', { targetId: observed.id });
    return { action: 'unchanged', targetId: observed.id };
  }
  decision(run, 'deactivate', { targetId: observed.id });
  await deactivate(deps, observed, run);
  return { action: 'deprovisioned', targetId: observed.id };
}

async function deactivate(deps: ReconcileDeps, observed: ObservedUser, run: ReconcileRun): Promise<void> {
  const settings = await deps.target.serviceProviderConfig(run.trace);
  if (settings.patchSupported) {
    await deps.target.patch(
      'user',
      observed.id,
      [{ op: 'replace', path: 'active', value: false }],
      run.trace,
    );
    return;
  }
  await replaceManaged(deps, 'user', observed.id, { active: false }, run);
}

/** A user that just got its target id can now join its groups (a full sync orders that itself). */
async function enqueueGroupsOf(deps: ReconcileDeps, userId: string, run: ReconcileRun): Promise<void> {
  if (run.syncId) return;
  const groups = await deps.state.groupsOfUser(userId);
  if (groups.length > 0) await deps.enqueue(groups.map((id) => ({ kind: 'group' as const, id })));
}

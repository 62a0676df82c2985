import type { DesiredUser } from '../domain/identity.js';
import type { PatchOperation } from '../domain/scim-patch.js';
import { diffUser, replacedUser, userBody } from '../domain/user-diff.js';
import type { IdentityKindRules, Intent, ManagedTarget } from './identity-kind.js';
import { observe } from './matching.js';
import {
  decision,
  type ReconcileDeps,
  type ReconcileResult,
  type ReconcileRun,
} from './reconcile-context.js';
import { reconcileIdentity } from './reconcile-identity.js';
import { deleteTarget, writeChange } from './platform-writes.js';

/** Users: matched by externalId, then userName; deprovisioned as DEPROVISION says. */
export const userKind: IdentityKindRules<'user'> = {
  kind: 'user',
  readState: (deps, id) => deps.state.userState(id),
  nameAttribute: 'userName',
  name: (desired) => desired.userName,
  intend: (deps, desired, run) => Promise.resolve(userIntent(deps, desired, run)),
  deprovision: deprovisionUser,
};

export function reconcileUser(deps: ReconcileDeps, id: string, run: ReconcileRun): Promise<ReconcileResult> {
  return reconcileIdentity(deps, userKind, id, run);
}

function userIntent(deps: ReconcileDeps, desired: DesiredUser, run: ReconcileRun): Intent<'user'> {
  return {
    body: userBody(desired),
    replace: (current) => replacedUser(desired, current),
    diff: (observed) => {
      const diff = diffUser(desired, observed);
      return { attributes: diff.attributes, patches: [diff.operations] };
    },
    onTargetKnown: () => enqueueGroupsOf(deps, desired.id, run),
  };
}

/** A user that just got its target id can now join its groups (a full sync orders that itself). */
async function enqueueGroupsOf(deps: ReconcileDeps, userId: string, run: ReconcileRun): Promise<void> {
  if (run.syncId) return;
  const groups = await deps.state.groupsOfUser(userId);
  if (groups.length > 0) await deps.enqueue(groups.map((id) => ({ kind: 'group' as const, id })));
}

const DEACTIVATE: PatchOperation[] = [{ op: 'replace', path: 'active', value: false }];

/**
 * DEPROVISION=delete deletes the user; deactivate sets `active: false`, and nothing sets it back
 * but an input that says `active: true` (SPEC §6).
 */
async function deprovisionUser(
  deps: ReconcileDeps,
  { id, targetId, state }: ManagedTarget<'user'>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  if (deps.deprovision === 'delete') return deleteTarget(deps, 'user', id, targetId, run);
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
  await writeChange(
    deps,
    'user',
    observed.id,
    [DEACTIVATE],
    (current) => ({ ...current, active: false }),
    run,
  );
  return { action: 'deprovisioned', targetId: observed.id };
}

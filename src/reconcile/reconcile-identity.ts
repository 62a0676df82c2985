import { BridgeError, isBridgeError } from '../domain/errors.js';
import { platformExternalId, type IdentityKind } from '../domain/identity.js';
import type { IdentityState } from '../store/reconcile-state.store.js';
import {
  lookupsOf,
  type Desired,
  type IdentityKindRules,
  type Intent,
  type Observed,
} from './identity-kind.js';
import { claimLostCreate, matchOnPlatform, observe } from './matching.js';
import { Parked } from './parked.js';
import {
  decision,
  retryWhenPlatformGone,
  type ReconcileDeps,
  type ReconcileResult,
  type ReconcileRun,
} from './reconcile-context.js';
import { writeChange } from './platform-writes.js';

/**
 * Makes the target match one identity's desired state (SPEC §6), reading both afresh
 * (level-triggered): observe → look up → adopt, or create → update; or, when the identity is no
 * longer desired, deprovision it. The kind's rules supply only what differs between users and
 * groups. A write that meets a 404 (deleted meanwhile) forgets the target id and starts over.
 * A parked identity (a conflict between inputs waits for an admin) is never reconciled, and one
 * found to be in conflict while matching is parked: the run ends `parked`, with nothing written.
 */
export async function reconcileIdentity<K extends IdentityKind>(
  deps: ReconcileDeps,
  rules: IdentityKindRules<K>,
  id: string,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  try {
    return await retryWhenPlatformGone(deps, { kind: rules.kind, id }, run, async () => {
      const state = await rules.readState(deps, id);
      if (!state.desired) return deprovision(deps, rules, id, state, run);
      if (state.parked) {
        decision(run, 'parked', { conflict: state.parked });
        return { action: 'parked' };
      }
      return applyDesired(deps, rules, state.desired, state, run);
    });
  } catch (error) {
    if (error instanceof Parked) return { action: 'parked' };
    throw error;
  }
}

async function applyDesired<K extends IdentityKind>(
  deps: ReconcileDeps,
  rules: IdentityKindRules<K>,
  desired: Desired<K>,
  state: IdentityState<Desired<K>>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const intent = await rules.intend(deps, desired, run);
  const { observed, adopted } = await findOnPlatform(deps, rules, desired, state, run);
  let result: ReconcileResult;
  if (!observed) {
    result = await create(deps, rules, desired, intent, run);
  } else {
    if (adopted) await intent.onTargetKnown?.();
    result = await update(deps, rules.kind, observed, intent, adopted, run);
  }
  return intent.waitingFor ? { ...result, waitingFor: intent.waitingFor } : result;
}

/**
 * The identity's resource on the target: a fresh full-sync observation or a GET by its known
 * target id; failing those, the kind's look-ups, whose match is adopted. A fresh listing that
 * showed no match skips the look-ups.
 */
async function findOnPlatform<K extends IdentityKind>(
  deps: ReconcileDeps,
  rules: IdentityKindRules<K>,
  desired: Desired<K>,
  state: IdentityState<Desired<K>>,
  run: ReconcileRun,
): Promise<{ observed?: Observed<K>; adopted: boolean }> {
  const sighting = await observe(deps, rules.kind, desired.id, state, run);
  if (sighting.resource || sighting.absent) return { observed: sighting.resource, adopted: sighting.adopted };
  const found = await matchOnPlatform(deps, rules.kind, desired.id, lookupsOf(rules, desired), run);
  return found ? { observed: found, adopted: true } : { adopted: false };
}

/**
 * POSTs the identity. The pending create is recorded first: if the answer is lost (the platform
 * created it, the bridge never learnt its id) and the identity is then deleted, deprovisioning
 * still finds the resource by this externalId (claimLostCreate).
 */
async function create<K extends IdentityKind>(
  deps: ReconcileDeps,
  rules: IdentityKindRules<K>,
  desired: Desired<K>,
  intent: Intent<K>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  decision(run, 'create', intent.createDetail);
  await deps.state.markCreating(rules.kind, desired.id, platformExternalId(desired));
  let targetId: string;
  try {
    targetId = (await deps.platform.create(rules.kind, intent.body, run.trace)).id;
  } catch (error) {
    if (!isBridgeError(error, 'target_conflict') || error.retryable) throw error;
    decision(run, 'conflict-on-create', { detail: error.detail });
    return adoptConflicting(deps, rules, desired, intent, error.detail, run);
  }
  // Recorded before anything else, so that a crash from here on cannot lead to a second create.
  await deps.state.setTarget(rules.kind, desired.id, targetId);
  await intent.onTargetKnown?.();
  return { action: 'created', targetId };
}

/** A 409 on create: it exists after all (created meanwhile, or a lost answer). Adopt, never duplicate. */
async function adoptConflicting<K extends IdentityKind>(
  deps: ReconcileDeps,
  rules: IdentityKindRules<K>,
  desired: Desired<K>,
  intent: Intent<K>,
  detail: string | undefined,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const found = await matchOnPlatform(deps, rules.kind, desired.id, lookupsOf(rules, desired), run);
  if (!found) {
    const message = `The platform reports a conflict but no matching ${rules.kind} was found`;
    throw new BridgeError('target_conflict', message, { retryable: true, detail, status: 409 });
  }
  await intent.onTargetKnown?.();
  return update(deps, rules.kind, found, intent, true, run);
}

/** Writes what differs, if anything; an identity adopted with nothing to change is `adopted`. */
async function update<K extends IdentityKind>(
  deps: ReconcileDeps,
  kind: K,
  observed: Observed<K>,
  intent: Intent<K>,
  adopted: boolean,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const change = intent.diff(observed);
  if (change.attributes.length === 0) {
    if (!adopted) decision(run, 'unchanged', { targetId: observed.id });
    return { action: adopted ? 'adopted' : 'unchanged', targetId: observed.id };
  }
  decision(run, 'update', { targetId: observed.id, attributes: change.attributes, ...change.detail });
  await writeChange(deps, kind, observed.id, change.patches, intent.replace, run);
  return { action: 'updated', targetId: observed.id, changed: change.attributes };
}

/**
 * An identity no longer desired: deprovisioned by its kind's rule if the bridge manages its
 * resource, including one whose create answer was lost; users it never matched are left alone.
 */
async function deprovision<K extends IdentityKind>(
  deps: ReconcileDeps,
  rules: IdentityKindRules<K>,
  id: string,
  state: IdentityState<Desired<K>>,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  const claimed = await claimLostCreate(deps, rules.kind, id, state, run);
  if (!claimed.managed || !claimed.targetId) {
    decision(run, 'nothing-to-deprovision');
    return { action: 'unchanged' };
  }
  return rules.deprovision(deps, { id, targetId: claimed.targetId, state: claimed }, run);
}

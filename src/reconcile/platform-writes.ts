import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import type { PatchOperation } from '../domain/scim-patch.js';
import { replaceableBody } from '../platform/platform-resources.js';
import {
  decision,
  type ReconcileDeps,
  type ReconcileResult,
  type ReconcileRun,
} from './reconcile-context.js';

/**
 * Writes a change to a target resource: the smallest PATCH when the platform's
 * ServiceProviderConfig allows PATCH (RFC 7643 §5), otherwise one PUT of the managed attributes.
 */
export async function writeChange(
  deps: ReconcileDeps,
  kind: IdentityKind,
  targetId: string,
  patches: readonly PatchOperation[][],
  replace: Replacement,
  run: ReconcileRun,
): Promise<void> {
  const settings = await deps.platform.serviceProviderConfig(run.trace);
  if (!settings.patchSupported) return replaceManaged(deps, kind, targetId, replace, run);
  for (const operations of patches) await deps.platform.patch(kind, targetId, operations, run.trace);
}

/** The body of a PUT made from the resource as the platform holds it (less id, meta and schemas). */
export type Replacement = (current: Record<string, unknown>) => Record<string, unknown>;

/**
 * PUT replaces the whole resource (RFC 7644 §3.5.1): it carries the resource as the platform holds
 * it now (read afresh — a listing keeps only what the bridge compares) made to match, so that it
 * changes nothing the bridge does not manage.
 */
async function replaceManaged(
  deps: ReconcileDeps,
  kind: IdentityKind,
  targetId: string,
  replace: Replacement,
  run: ReconcileRun,
): Promise<void> {
  const current = await deps.platform.get(kind, targetId, run.trace);
  if (!current) throw new BridgeError('target_not_found', `The platform no longer has ${kind} ${targetId}`);
  await deps.platform.replace(kind, targetId, replace(replaceableBody(current)), run.trace);
}

/** Deletes a managed resource (a 404 is success) and drops the identity's record of it. */
export async function deleteTarget(
  deps: ReconcileDeps,
  kind: IdentityKind,
  id: string,
  targetId: string,
  run: ReconcileRun,
): Promise<ReconcileResult> {
  decision(run, 'delete', { targetId });
  await deps.platform.delete(kind, targetId, run.trace);
  await deps.state.forgetTarget(kind, id, true);
  return { action: 'deleted', targetId };
}

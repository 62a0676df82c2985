import type { IdentityKind } from '../domain/identity.js';
import type { Observation } from '../reconcile/reconcile-context.js';

/**
 * A reconcile job carries the identity's key, never its desired data: the run reads the current
 * desired state when it starts (level-triggered). A full sync may add what it saw on the target.
 */
export interface ReconcileJobData {
  kind: IdentityKind;
  id: string;
  observation?: Observation;
  syncId?: string;
}

export type ReconcileJobName = IdentityKind;

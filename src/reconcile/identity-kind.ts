import type { ObservedGroup } from '../domain/group-diff.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import type { PatchOperation } from '../domain/scim-patch.js';
import type { ObservedUser } from '../domain/user-diff.js';
import type { IdentityState } from '../store/reconcile-state.store.js';
import { platformExternalId } from '../domain/identity.js';
import type { ReconcileDeps, ReconcileResult, ReconcileRun } from './reconcile-context.js';

export type Desired<K extends IdentityKind> = K extends 'user' ? DesiredUser : DesiredGroup;
/** A resource as the target holds it, reduced to what the bridge manages. */
export type Observed<K extends IdentityKind> = K extends 'user' ? ObservedUser : ObservedGroup;

/** One matching look-up: `filter=<attribute> eq "<value>"` (SPEC §6 matching). */
export interface Lookup {
  attribute: string;
  value: string;
}

/** What a target resource lacks to equal the desired state. */
export interface Change {
  /** Managed attributes that differ; empty when the target already matches. */
  attributes: string[];
  /** The smallest PATCH, as requests of bounded size. */
  patches: PatchOperation[][];
  /** Extra fields for the `update` decision in the identity's history. */
  detail?: Record<string, unknown>;
}

/** What one run wants on the target for a desired identity. */
export interface Intent<K extends IdentityKind> {
  /** The body of the POST. */
  body: Record<string, unknown>;
  /**
   * The body of a PUT, for a platform without PATCH: `current` (the resource as the platform holds
   * it, less id, meta and schemas) made to match.
   */
  replace(current: Record<string, unknown>): Record<string, unknown>;
  diff(observed: Observed<K>): Change;
  /** Extra fields for the `create` decision. */
  createDetail?: Record<string, unknown>;
  /** Desired members not provisioned yet (groups); the identity runs again when they are. */
  waitingFor?: number;
  /** Runs once the identity has a target id, created or adopted. */
  onTargetKnown?(): Promise<void>;
}

/** An identity no longer desired whose target resource the bridge manages. */
export interface ManagedTarget<K extends IdentityKind> {
  id: string;
  targetId: string;
  state: IdentityState<Desired<K>>;
}

/**
 * What differs between users and groups; everything else (observe, look up, adopt, create, 409,
 * update, finding a lost create) is the shared skeleton in reconcile-identity.ts.
 */
export interface IdentityKindRules<K extends IdentityKind> {
  kind: K;
  readState(deps: ReconcileDeps, id: string): Promise<IdentityState<Desired<K>>>;
  /** The attribute an identity is looked up by after its externalId (SPEC §6, Matching), and its value. */
  nameAttribute: 'userName' | 'displayName';
  name(desired: Desired<K>): string;
  /** May enqueue other identities first (a group's members not provisioned yet). */
  intend(deps: ReconcileDeps, desired: Desired<K>, run: ReconcileRun): Promise<Intent<K>>;
  deprovision(deps: ReconcileDeps, target: ManagedTarget<K>, run: ReconcileRun): Promise<ReconcileResult>;
}

/** The look-ups, in order, for an identity without a known target id: its externalId, then its name. */
export function lookupsOf<K extends IdentityKind>(
  rules: IdentityKindRules<K>,
  desired: Desired<K>,
): Lookup[] {
  return [
    { attribute: 'externalId', value: platformExternalId(desired) },
    { attribute: rules.nameAttribute, value: rules.name(desired) },
  ];
}

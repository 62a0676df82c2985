import type { BatchOptions, BatchResult, DesiredChange, WriteStatus } from '../../domain/desired-change.js';
import type { ObservedGroup } from '../../domain/group-diff.js';
import type { DesiredGroup, DesiredUser, IdentityKey, IdentityKind } from '../../domain/identity.js';
import type { PolicyKind } from '../../domain/identity-policy.js';
import type { Inputs } from '../../domain/input.js';
import type { MappingVerdict, ScopeVerdict } from '../../domain/policy-explain.js';
import type { ObservedUser } from '../../domain/user-diff.js';
import type { ReconcileProgress } from '../../store/reconcile-progress.queries.js';

/**
 * Provision on demand (docs/scope-and-mapping.md): one identity read from its input's source now,
 * shown step by step — read, scope, mapping, platform match, action — and applied alone through
 * the desired state and the reconcile pipeline unless it is a dry run. Here: what it is asked,
 * what it answers, and the ports it works through.
 */

export interface ProvisionRequest {
  kind: PolicyKind;
  /** The source's id (LDAP: also the DN). */
  key: string;
  /** The input's owner name; may be left out when only one input can be read one identity at a time. */
  input?: string;
  dryRun: boolean;
  /** How long an apply waits for the platform to converge before answering `pending`. */
  waitMs: number;
}

export type Observed = ObservedUser | ObservedGroup;

export interface MatchStep {
  outcome: 'matched' | 'none' | 'not-looked-up';
  by?: 'targetId' | 'externalId' | 'userName' | 'displayName';
  targetId?: string;
  /** The platform account is the one the bridge manages for this identity. */
  managed: boolean;
  /** The identity the bridge manages that platform account for, when it is another one. */
  heldBy?: string;
  /** Another platform account that fits too (by name, when the first fits by externalId). */
  alsoMatches?: string;
  reason: string;
}

export interface AttributeChange {
  attribute: string;
  before: unknown;
  after: unknown;
}

export interface ActionStep {
  action: 'create' | 'update' | 'none' | 'remove-would-happen' | 'conflict';
  reason: string;
  changes?: AttributeChange[];
  /** Groups: members added and removed on the platform, and those to provision first. */
  members?: { add: number; remove: number; provisionFirst: number };
}

export interface MemberView {
  id: string;
  label: string;
  outcome: 'in-scope' | 'out-of-scope' | 'unmappable';
  reason?: string;
  userName?: string;
  targetId?: string;
}

export interface MembersStep {
  total: number;
  inScope: number;
  outOfScope: number;
  unmappable: number;
  /** The first MEMBERS_SHOWN of them. */
  items: MemberView[];
}

export interface AppliedIdentity {
  kind: IdentityKind;
  id: string;
  write: WriteStatus;
  /** The outcome of its last reconcile run (created, updated, unchanged, adopted, failed, parked…). */
  result?: string;
  targetId?: string;
  error?: { code: string; message: string; detail?: string };
}

export interface AppliedStep {
  state: 'converged' | 'failed' | 'parked' | 'pending' | 'not-applied';
  reason: string;
  /** The identities written (a group's members first), the first MEMBERS_SHOWN of them. */
  identities: AppliedIdentity[];
  total: number;
}

export interface ProvisionResult {
  input: string;
  kind: IdentityKind;
  key: string;
  dryRun: boolean;
  steps: {
    read: { found: true; id: string; label: string; source: string };
    scope: ScopeVerdict;
    mapping: MappingVerdict & { expressions: { attribute: string; setting: string; expression: string }[] };
    members?: MembersStep;
    match: MatchStep;
    action: ActionStep;
    applied?: AppliedStep;
  };
}

export const MEMBERS_SHOWN = 100;

/** What the bridge holds for one identity. */
export interface KnownIdentity {
  desired?: DesiredUser | DesiredGroup;
  targetId?: string;
  managed: boolean;
  owner?: string;
  parked?: string;
}

export type { ReconcileProgress };

/** The platform, read only: a dry run sends no writing request. */
export interface ProvisionPlatform {
  get(kind: IdentityKind, targetId: string): Promise<Observed | undefined>;
  findBy(kind: IdentityKind, attribute: string, value: string): Promise<Observed[]>;
}

/** The store's reads and writes provisioning uses. */
export interface ProvisionStore {
  known(kind: IdentityKind, id: string): Promise<KnownIdentity>;
  /** The identity the bridge manages a platform account for. */
  holderOf(kind: IdentityKind, targetId: string): Promise<string | undefined>;
  /** Target ids of users the bridge holds. */
  userTargets(ids: readonly string[]): Promise<ReadonlyMap<string, { targetId?: string }>>;
  progress(keys: readonly IdentityKey[]): Promise<ReconcileProgress[]>;
  apply(changes: readonly DesiredChange[], options: BatchOptions): Promise<BatchResult>;
  /** Enqueues reconcile runs (for identities whose desired state did not change). */
  enqueue(keys: readonly IdentityKey[]): Promise<void>;
  /** The store's clock (ms), the one reconcile runs record their times by. */
  now(): number;
}

export interface ProvisionDeps {
  inputs: Inputs;
  platform: ProvisionPlatform;
  store: ProvisionStore;
  /** Waits between two looks at the reconcile progress. */
  pause?: (ms: number) => Promise<void>;
}

import { isBridgeError } from '../domain/errors.js';
import type { IdentityKey } from '../domain/identity.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { ObservedUser } from '../domain/user-diff.js';
import type { Logger } from '../ops/logger.js';
import type { HistoryEntry, ReconcileStateStore, SeenMarks } from '../store/reconcile-state.store.js';
import type { RequestTrace } from '../platform/scim-http.js';
import type { PlatformClient } from '../platform/platform.client.js';

/** What a reconcile run needs from the rest of the bridge. */
export interface ReconcileDeps {
  state: ReconcileStateStore;
  platform: PlatformClient;
  deprovision: 'deactivate' | 'delete';
  /** Enqueues reconcile jobs for other identities (members to provision, groups to update). */
  enqueue: (keys: readonly IdentityKey[]) => Promise<void>;
  logger: Logger;
}

/**
 * What a full sync saw on the target when it listed it: the resource, or null when it was absent.
 * A run uses it instead of reading the target again, unless the bridge wrote to the identity after
 * the listing (then the observation is stale and the run reads afresh).
 */
export interface Observation {
  observedAt: number;
  resource: ObservedUser | ObservedGroup | null;
}

/** One run of one identity: its trace, history and the full sync it belongs to, if any. */
export interface ReconcileRun {
  startedAt: number;
  /** The identity's dirty marks as the run saw them before reading the desired state. */
  seen: SeenMarks;
  /** The shared (Redis) clock. */
  now: () => number;
  trace: RequestTrace;
  history: HistoryEntry[];
  observation?: Observation;
  /** Set when a full sync enqueued the run: the sync orders users before groups itself. */
  syncId?: string;
}

/** `parked`: not reconciled while a conflict between inputs waits for an admin (SPEC §6, Ownership). */
export type ReconcileAction =
  'created' | 'adopted' | 'updated' | 'deprovisioned' | 'deleted' | 'unchanged' | 'parked';

export interface ReconcileResult {
  action: ReconcileAction;
  targetId?: string;
  /** Managed attributes that were written. */
  changed?: string[];
  /** Group members not provisioned yet; the group runs again when they are. */
  waitingFor?: number;
}

export function decision(run: ReconcileRun, what: string, fields: Record<string, unknown> = {}): void {
  run.history.push({ at: run.now(), type: 'decision', decision: what, ...fields });
}

/**
 * Runs one reconcile pass, and again (three passes at most) when a write meets a 404: the identity
 * was deleted on the target meanwhile, so its target id is forgotten and it is looked up afresh.
 */
export async function retryWhenPlatformGone<T>(
  deps: ReconcileDeps,
  key: IdentityKey,
  run: ReconcileRun,
  pass: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pass();
    } catch (error) {
      if (!isBridgeError(error, 'target_not_found') || attempt >= 3) throw error;
      decision(run, 'target-gone-during-write', { pass: attempt });
      await deps.state.forgetTarget(key.kind, key.id);
      run.observation = undefined;
    }
  }
}

import { formatKey } from '../domain/identity.js';
import { conflictView } from './conflict-views.js';
import type { Failure } from './schemas/failures.schema.js';
import type {
  HistoryEntry as HistoryView,
  Identity,
  IdentityStatus,
  StoredError as StoredErrorView,
} from './schemas/identity.schema.js';
import type { FailureItem } from '../store/failures.queries.js';
import type { IdentityTrace } from '../store/identity-trace.queries.js';
import type { HistoryEntry, StoredError } from '../store/reconcile-state.store.js';
import { redact, redactText } from '../ops/redact.js';

/**
 * What the admin API shows of the store's records: times as ISO strings, absent values as null,
 * and anything secret-looking redacted. History entries hold no secrets by construction; this is
 * the defence in depth (a SCIM `detail` or a future field must never leak a token).
 */

export { redact } from '../ops/redact.js';

export function iso(ms: number | undefined): string | null {
  return ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

export function errorView(error: StoredError | undefined): StoredErrorView | null {
  if (!error) return null;
  return {
    code: String(error.code),
    message: redactText(String(error.message)),
    ...(typeof error.status === 'number' ? { status: error.status } : {}),
    ...(typeof error.detail === 'string' ? { detail: redactText(error.detail) } : {}),
    at: iso(Number(error.at)),
  };
}

export function historyView(entry: HistoryEntry): HistoryView {
  const { at, type, ...fields } = entry;
  return {
    at: iso(typeof at === 'number' ? at : undefined),
    type: typeof type === 'string' ? type : 'unknown',
    ...(redact(fields) as Record<string, unknown>),
  };
}

/**
 * Where the identity stands, in one word, derived from the marks the store keeps.
 * `pending` only while a change waits (its dirty mark). An identity removed from the desired state
 * with nothing waiting has been handled: `deprovisioned` when the platform account was deactivated
 * (DEPROVISION=deactivate: still managed) or deleted (its record dropped, its history kept), `removed`
 * when the bridge never had an account to deprovision.
 */
export function identityStatus(trace: IdentityTrace): IdentityStatus {
  // Parked: not reconciled until an admin resolves its conflict, whatever happened before.
  if (trace.parked && trace.desired) return 'parked';
  if (trace.failedAt !== undefined) return 'failed';
  if (trace.heldBy) return 'awaiting-approval';
  if (trace.lastResult === 'retrying') return 'retrying';
  if (trace.dirtySince !== undefined) return 'pending';
  if (trace.desired) return trace.managed ? 'in-sync' : 'not-provisioned';
  return trace.managed || deletedOnPlatform(trace) ? 'deprovisioned' : 'removed';
}

/** The newest decision of its runs deleted the platform account, or found it already gone. */
function deletedOnPlatform(trace: IdentityTrace): boolean {
  const last = trace.history.find((entry) => entry.type === 'decision');
  return last?.decision === 'delete' || last?.decision === 'already-gone';
}

/** `names`: userName / displayName of the identities it lists (a user's groups, a group's members). */
export function identityView(trace: IdentityTrace, names?: ReadonlyMap<string, string>): Identity {
  return {
    kind: trace.kind,
    id: trace.id,
    key: formatKey(trace),
    matchedBy: trace.matchedBy,
    status: identityStatus(trace),
    desired: trace.desired ? (redact(trace.desired) as Identity['desired']) : null,
    targetId: trace.targetId ?? null,
    managed: trace.managed,
    owner: trace.owner ?? null,
    parked: trace.parked ? conflictView(trace.parked) : null,
    createdAt: iso(trace.createdAt),
    changedAt: iso(trace.changedAt),
    lastAppliedAt: iso(trace.lastAppliedAt),
    lastAttemptAt: iso(trace.lastAttemptAt),
    lastResult: trace.lastResult ?? null,
    lastError: errorView(trace.lastError),
    failedAt: iso(trace.failedAt),
    pendingSince: iso(trace.dirtySince),
    heldBy: trace.heldBy ?? null,
    ...(trace.groups ? { groups: trace.groups } : {}),
    ...(names ? { names: Object.fromEntries(names) } : {}),
    history: trace.history.map(historyView),
  };
}

export function failureView(item: FailureItem): Failure {
  return {
    key: formatKey(item),
    kind: item.kind,
    id: item.id,
    name: item.name ?? null,
    failedAt: iso(item.failedAt),
    error: errorView(item.error),
  };
}

import { formatKey } from '../domain/identity.js';
import type { FailureItem } from '../store/failures.queries.js';
import type { IdentityTrace } from '../store/identity-trace.queries.js';
import type { HistoryEntry, StoredError } from '../store/reconcile-state.store.js';

/**
 * What the admin API shows of the store's records: times as ISO strings, absent values as null,
 * and anything secret-looking redacted. History entries hold no secrets by construction; this is
 * the defence in depth (a SCIM `detail` or a future field must never leak a token).
 */

const SECRET_FIELD =
  /password|passwd|secret|token|authori[sz]ation|cookie|credential|api[-_]?key|private[-_]?key/i;
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic|SSWS)\s+[^\s",;]+/gi, '$1 [redacted]'],
  [/(\/\/)[^/@\s:]+:[^/@\s]+@/g, '$1[redacted]@'],
  [/([?&](?:access_token|token|api_key|apikey|secret|password)=)[^&\s"]+/gi, '$1[redacted]'],
];
export const REDACTED = '[redacted]';

/** A deep copy with secret-looking fields and text replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_FIELD.test(key) && item !== null && item !== undefined ? REDACTED : redact(item, depth + 1),
    ]),
  );
}

function redactText(text: string): string {
  return SECRET_TEXT.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

export function iso(ms: number | undefined): string | null {
  return ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

export function errorView(error: StoredError | undefined) {
  if (!error) return null;
  return {
    code: String(error.code),
    message: redactText(String(error.message)),
    ...(typeof error.status === 'number' ? { status: error.status } : {}),
    ...(typeof error.detail === 'string' ? { detail: redactText(error.detail) } : {}),
    at: iso(Number(error.at)),
  };
}

export function historyView(entry: HistoryEntry) {
  const { at, type, ...fields } = entry;
  return {
    at: iso(typeof at === 'number' ? at : undefined),
    type: typeof type === 'string' ? type : 'unknown',
    ...(redact(fields) as Record<string, unknown>),
  };
}

/** Where the identity stands, in one word, derived from the marks the store keeps. */
export type IdentityStatus =
  'failed' | 'awaiting-approval' | 'retrying' | 'pending' | 'in-sync' | 'not-provisioned' | 'removed';

export function identityStatus(trace: IdentityTrace): IdentityStatus {
  if (trace.failedAt !== undefined) return 'failed';
  if (trace.heldBy) return 'awaiting-approval';
  if (trace.lastResult === 'retrying') return 'retrying';
  if (trace.dirtySince !== undefined) return 'pending';
  if (trace.desired) return trace.managed ? 'in-sync' : 'not-provisioned';
  return trace.managed ? 'pending' : 'removed';
}

export function identityView(trace: IdentityTrace) {
  return {
    kind: trace.kind,
    id: trace.id,
    key: formatKey(trace),
    matchedBy: trace.matchedBy,
    status: identityStatus(trace),
    desired: trace.desired ? redact(trace.desired) : null,
    targetId: trace.targetId ?? null,
    managed: trace.managed,
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
    history: trace.history.map(historyView),
  };
}

export function failureView(item: FailureItem) {
  return {
    key: formatKey(item),
    kind: item.kind,
    id: item.id,
    name: item.name ?? null,
    failedAt: iso(item.failedAt),
    error: errorView(item.error),
  };
}

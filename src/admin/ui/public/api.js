// @ts-check
/** Browser module: the admin token in session storage, and calls to the admin API with it. */

const TOKEN_KEY = 'scim-bridge.admin-token';

/** The token lives in this tab's session storage only: never in a URL, a cookie or local storage. */
export const session = {
  get: function () {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  /** @param {string} token */
  set: function (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear: function () {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status; 0 when the bridge did not answer
   * @param {string} code the admin API's error code, e.g. unauthorized, not_found, invalid_input
   * @param {string} message
   * @param {string[]} [problems] each problem of an invalid input
   */
  constructor(status, code, message, problems) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems || [];
  }
}

/** @type {() => void} */
let onUnauthorized = function () {};
/** @param {() => void} handler */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}
/** Tells the page that the bridge refused the token (for requests made without api()). */
export function unauthorized() {
  onUnauthorized();
}

/** The page is served at .../admin/ui/, so the API is one level up, wherever the bridge is mounted. */
const BASE = new URL('../', document.baseURI);

/** @param {string} path */
export function adminUrl(path) {
  return new URL(path, BASE);
}

/**
 * Calls the admin API. T is the shape of its answer for this path (the typedefs below): trusted, not
 * checked here; the API's own tests validate its answers against src/admin/openapi.schemas.ts.
 * options.cookies: let the browser store or send cookies (only the queue board's session uses one).
 *
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path relative to the admin API, e.g. 'status' or 'sync?limit=50'
 * @param {unknown} [body] sent as JSON
 * @param {{ cookies?: boolean }} [options]
 * @returns {Promise<T>}
 */
export async function api(method, path, body, options) {
  const token = session.get();
  if (!token) {
    onUnauthorized();
    throw new ApiError(401, 'unauthorized', 'Not signed in');
  }
  /** @type {Record<string, string>} */
  const headers = { Authorization: 'Bearer ' + token, Accept: 'application/json' };
  const credentials = options && options.cookies ? 'same-origin' : 'omit';
  /** @type {RequestInit} */
  const init = {
    method: method,
    headers: headers,
    cache: 'no-store',
    credentials: credentials,
    redirect: 'error',
  };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(new URL(path, BASE), init);
  } catch {
    throw new ApiError(0, 'network', 'The bridge did not answer');
  }
  const text = await response.text();
  /** @type {{ error?: ErrorBody } | null} */
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page, say): the status tells what happened.
  }
  if (response.status === 401) onUnauthorized();
  if (!response.ok) {
    /** @type {Partial<ErrorBody>} */
    const error = data && data.error ? data.error : {};
    throw new ApiError(
      response.status,
      error.code || 'http_' + response.status,
      error.message || response.statusText || 'Request failed',
      error.problems,
    );
  }
  return /** @type {T} */ (data);
}

/** @param {string} value */
export function enc(value) {
  return encodeURIComponent(value);
}

// What the dashboard reads of the admin API's answers; the JSON Schemas in
// src/admin/openapi.schemas.ts are the reference.

/**
 * @typedef {{ code: string; message: string; problems?: string[] }} ErrorBody
 * @typedef {'reachable' | 'rate-limited' | 'auth-failed' | 'unavailable'} TargetState
 * @typedef {{ state: TargetState; since: string | null; detail: string | null; pausedForMs: number }} TargetHealth
 * @typedef {{ desired: number; managed: number; deprovisioned: number }} IdentityCounts
 * @typedef {{
 *   status: 'ok' | 'degraded';
 *   target: TargetHealth;
 *   queues: Record<string, Record<string, number>>;
 *   identities: { users: IdentityCounts; groups: IdentityCounts };
 *   failures: number;
 *   pending: number;
 *   activeSync?: SyncView | null;
 *   lastSync?: SyncView | null;
 *   lastFullSync?: SyncView | null;
 * }} Status
 */

/**
 * @typedef {{ create: number; update: number; deprovision: number; unchanged: number }} KindCounts
 * @typedef {{
 *   kind: 'user' | 'group';
 *   id: string;
 *   action: 'create' | 'update' | 'adopt' | 'deprovision';
 *   targetId?: string;
 *   attributes?: string[];
 * }} PlannedChange
 * @typedef {{ id: string | null; userName: string | null }} RemovedUser
 * @typedef {{ id: string | null; displayName: string | null }} RemovedGroup
 * @typedef {{ group: string; displayName: string | null; total: number; removed: RemovedUser[] }} MembershipRemoval
 * @typedef {{
 *   users: { total: number; sample: RemovedUser[] };
 *   groups: { total: number; sample: RemovedGroup[] };
 *   memberships: { total: number; groups: number; sample: MembershipRemoval[] };
 * }} Removals
 * @typedef {{
 *   name: string;
 *   owner?: string;
 *   users?: number;
 *   last?: { jobId: string; users: number };
 *   shrunkByPercent?: number;
 *   shrinkLimitPercent: number;
 * }} PlanSource
 * @typedef {{ users: number; groups: number }} PerKind
 * @typedef {{
 *   users: number;
 *   groups: number;
 *   owners: Record<string, PerKind>;
 *   refused: PerKind;
 * }} OwnedElsewhere
 * @typedef {{ linked: number; unmatchedInSource: number; unmatchedOnPlatform: number; ambiguous: number }} LinkCounts
 * @typedef {LinkCounts & { users: LinkCounts; groups: LinkCounts }} LinkOnly
 * @typedef {KindCounts & {
 *   users: KindCounts;
 *   groups: KindCounts;
 *   unmanagedUsers?: number;
 *   ownedElsewhere?: OwnedElsewhere;
 *   linkOnly?: LinkOnly;
 *   deprovisionLimit?: number;
 *   deprovisionLimitSetting?: string;
 *   held: boolean;
 *   holdReasons?: ('deprovision-limit' | 'source-shrink')[];
 *   approved?: true;
 *   source?: PlanSource;
 *   removals?: Removals;
 *   changes?: PlannedChange[];
 *   changesOmitted?: number;
 * }} SyncPlan
 * @typedef {{
 *   created: number;
 *   updated: number;
 *   deprovisioned: number;
 *   unchanged: number;
 *   failed: number;
 *   requests: { total: number; [method: string]: number };
 *   durationMs: number;
 *   phasesMs?: Record<string, number>;
 * }} SyncSummary
 * @typedef {{
 *   jobId: string;
 *   state: 'queued' | 'running' | 'awaiting-approval' | 'completed' | 'failed';
 *   dryRun: boolean;
 *   trigger: string;
 *   createdAt: string;
 *   startedAt?: string;
 *   finishedAt?: string;
 *   progress: { phase: string; done: number; total: number };
 *   plan?: SyncPlan;
 *   summary?: SyncSummary;
 *   error?: { code: string; message: string };
 *   cancelRequested?: true;
 *   linkOnly?: true;
 * }} SyncView
 */

/**
 * @typedef {{ code: string; message: string; status?: number; detail?: string; at: string | null }} StoredError
 * @typedef {{
 *   key: string;
 *   kind: 'user' | 'group';
 *   id: string;
 *   name: string | null;
 *   failedAt: string | null;
 *   error: StoredError | null;
 * }} Failure
 * @typedef {{ total: number; items: Failure[]; nextCursor: string | null }} FailureList
 * @typedef {{ at: string | null; type: string; [field: string]: unknown }} HistoryEntry
 * @typedef {{
 *   kind: 'user' | 'group';
 *   id: string;
 *   key: string;
 *   matchedBy: string;
 *   status: string;
 *   desired: object | null;
 *   targetId: string | null;
 *   managed: boolean;
 *   lastAppliedAt?: string | null;
 *   lastAttemptAt?: string | null;
 *   lastResult?: string | null;
 *   lastError?: StoredError | null;
 *   failedAt?: string | null;
 *   pendingSince?: string | null;
 *   heldBy?: string | null;
 *   groups?: string[];
 *   names?: Record<string, string>;
 *   history: HistoryEntry[];
 * }} IdentityTrace
 */

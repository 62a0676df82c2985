// @ts-check
/** Browser module: the admin token in session storage, and calls to the admin API with it. */

/** @import { ErrorBody } from '../api-types.js' */

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
 * Calls the admin API. T is the shape of its answer for this path (../api-types.ts: the API's own
 * zod schemas): trusted, not checked here; the API's tests validate its answers against them.
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

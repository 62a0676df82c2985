/** Browser module: the admin token in session storage, and calls to the admin API with it. */
export const API_JS = String.raw`const TOKEN_KEY = 'scim-bridge.admin-token';

/** The token lives in this tab's session storage only: never in a URL, a cookie or local storage. */
export const session = {
  get: function () {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set: function (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear: function () {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, code, message, problems) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems || [];
  }
}

let onUnauthorized = function () {};
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/** The page is served at .../admin/ui/, so the API is one level up, wherever the bridge is mounted. */
const BASE = new URL('../', document.baseURI);

export function adminUrl(path) {
  return new URL(path, BASE);
}

/** options.cookies: let the browser store or send cookies (only the queue board's session uses one). */
export async function api(method, path, body, options) {
  const token = session.get();
  if (!token) {
    onUnauthorized();
    throw new ApiError(401, 'unauthorized', 'Not signed in');
  }
  const headers = { Authorization: 'Bearer ' + token, Accept: 'application/json' };
  const credentials = options && options.cookies ? 'same-origin' : 'omit';
  const init = { method: method, headers: headers, cache: 'no-store', credentials: credentials, redirect: 'error' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(new URL(path, BASE), init);
  } catch (e) {
    throw new ApiError(0, 'network', 'The bridge did not answer');
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (response.status === 401) onUnauthorized();
  if (!response.ok) {
    const error = data && data.error ? data.error : {};
    throw new ApiError(
      response.status,
      error.code || 'http_' + response.status,
      error.message || response.statusText || 'Request failed',
      error.problems,
    );
  }
  return data;
}

export function enc(value) {
  return encodeURIComponent(value);
}
`;

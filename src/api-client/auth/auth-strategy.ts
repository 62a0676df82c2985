/**
 * How a client authenticates: it asks for the `Authorization` value before each request, and tells
 * the strategy when the API answered 401 to it. A strategy that can get a new credential (a token
 * cache) answers `true` to `refused` and the client tries once more with the new one; only a 401 to
 * that one counts (`source_unauthorized`). Credentials are functions, read at each use, so that a
 * secret re-read from its `*_FILE` applies without a restart.
 */
export interface AuthStrategy {
  /** The `Authorization` header value for the next request. */
  authorization(signal?: AbortSignal): Promise<string>;
  /** The API answered 401 to `given`: forget it; true when a new value is worth one more try. */
  refused(given: string): boolean;
  close?(): Promise<void>;
}

/** A static credential under a scheme (`Bearer`, Okta's `SSWS`), re-read at each request. */
export function schemeAuth(scheme: string, credential: () => string): AuthStrategy {
  return {
    authorization: () => Promise.resolve(`${scheme} ${credential()}`),
    // A value that changed since (a rotated secret file) is worth one more try; the same one is not.
    refused: (given) => given !== `${scheme} ${credential()}`,
  };
}

/** `Authorization: Bearer <token>` (RFC 6750 §2.1). */
export function bearerAuth(token: () => string): AuthStrategy {
  return schemeAuth('Bearer', token);
}

/** Okta's API tokens: `Authorization: SSWS <token>` (developer.okta.com, API tokens). */
export function sswsAuth(token: () => string): AuthStrategy {
  return schemeAuth('SSWS', token);
}

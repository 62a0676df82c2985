import type { GoogleWorkspace } from './google-server.js';

/**
 * Plain `fetch` calls against the emulation — a token exchange, a sign-in, a GET — for tests
 * of the emulation itself (and quick checks in others): no Google client library, nothing of the
 * bridge.
 */

export type ApiBody = Record<string, unknown> & {
  error?: { code: number; message: string; errors: { message: string; reason: string; domain: string }[] };
};

export function plainCalls(google: GoogleWorkspace) {
  const exchange = async (assertion: string) => {
    const response = await fetch(google.tokenUrl, { method: 'POST', body: google.tokenForm(assertion) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** An access token for `google.assertion(claims)`; throws when Google would refuse it. */
  const signIn = async (claims: Record<string, unknown> = {}) => {
    const { status, body } = await exchange(google.assertion(claims));
    if (status !== 200) throw new Error(`the token endpoint answered ${status}: ${JSON.stringify(body)}`);
    return body.access_token as string;
  };
  const get = async (path: string, token?: string) => {
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const response = await fetch(new URL(path, google.url), { headers });
    return { status: response.status, body: (await response.json()) as ApiBody };
  };
  return { exchange, signIn, get };
}

import type { ServerResponse } from 'node:http';
import { ApiClient } from '../../src/api-client/api-client.js';
import type { AuthStrategy } from '../../src/api-client/auth/auth-strategy.js';
import { isBridgeError, type BridgeError } from '../../src/domain/errors.js';
import { json, startScripted, type ScriptedRequest, type ScriptedServer } from './scripted-http.js';

/**
 * A small scripted OAuth2 token endpoint (RFC 6749 §3.2) and an API on another origin that accepts
 * only the tokens the endpoint issued (401 with a Graph-like error body otherwise), for the API
 * client's authentication tests. Both are real HTTP servers on free ports. The clock the token
 * cache reads is the world's `clock` (tests move it).
 */
export interface TokenWorld {
  readonly tokens: ScriptedServer;
  readonly api: ScriptedServer;
  /** Access tokens the API accepts. */
  readonly valid: Set<string>;
  /** How the token endpoint answers the n-th token request; `issueToken` by default. */
  issue: (request: ScriptedRequest, res: ServerResponse, n: number) => void;
  clock: number;
  now(): number;
  /** Issues `at-<n>`, valid at the API. */
  issueToken(res: ServerResponse, n: number, expiresIn?: number): void;
  /** A client of the API (closed with the world). */
  apiWith(auth: AuthStrategy): ApiClient;
  close(): Promise<void>;
}

export async function startTokenWorld(): Promise<TokenWorld> {
  const valid = new Set<string>();
  const clients: ApiClient[] = [];
  const issueToken = (res: ServerResponse, n: number, expiresIn = 3600) => {
    valid.add(`at-${n}`);
    json(res, 200, { token_type: 'Bearer', expires_in: expiresIn, access_token: `at-${n}` });
  };
  const api = await startScripted((request, res) => {
    const token = String(request.headers.authorization).replace(/^Bearer /, '');
    if (valid.has(token)) return json(res, 200, { value: [] });
    const message = 'Access token has expired or is not yet valid.';
    json(res, 401, { error: { code: 'InvalidAuthenticationToken', message } });
  });
  const world: TokenWorld = {
    tokens: await startScripted((request, res, n) => world.issue(request, res, n)),
    api,
    valid,
    issue: (_, res, n) => issueToken(res, n),
    clock: Date.parse('2025-03-01T10:00:00Z'),
    now: () => world.clock,
    issueToken,
    apiWith: (auth) => {
      const client = new ApiClient({
        label: 'the directory API',
        input: 'test',
        baseUrl: `${api.url}/v1.0/`,
        auth,
      });
      clients.push(client);
      return client;
    },
    close: async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await Promise.all([world.tokens.close(), api.close()]);
    },
  };
  return world;
}

/** The form a token request carried. */
export function formOf(request: ScriptedRequest | undefined): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request?.body ?? ''));
}

/** The BridgeError a promise rejects with (fails the test on anything else). */
export async function bridgeFailure(promise: Promise<unknown>): Promise<BridgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

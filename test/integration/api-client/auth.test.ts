import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/api-client/api-client.js';
import { sswsAuth, type AuthStrategy } from '../../../src/api-client/auth/auth-strategy.js';
import {
  clientCredentialsAuth,
  type ClientCredential,
} from '../../../src/api-client/auth/client-credentials.js';
import { googleServiceAccountAuth } from '../../../src/api-client/auth/google-service-account.js';
import { isBridgeError, type BridgeError } from '../../../src/domain/errors.js';
import { OktaApiClient } from '../../../src/sources/okta/okta-api.client.js';
import { startOktaApi } from '../../support/okta-api.js';
import {
  decodeJws,
  makeTestKeys,
  thumbprint,
  verifiesJws,
  type TestKeys,
} from '../../support/openssl-keys.js';
import {
  json,
  startScripted,
  type ScriptedRequest,
  type ScriptedServer,
} from '../../support/scripted-http.js';

// Each authentication strategy against a small scripted token endpoint and an API server on
// another origin that accepts only the tokens the endpoint issued. Real: HTTP, undici, node:crypto
// signing; signatures and thumbprints are checked with the openssl command. Faked: the clock the
// token cache reads (refresh ahead of expiry), nothing else.

const SECRET = 'client-secret-value-for-tests-9d3f';
const TOKEN_PATH = '/tenant-1/oauth2/v2.0/token';
const SCOPE = 'https://graph.example.com/.default';

let tokens: ScriptedServer;
let api: ScriptedServer;
let valid: Set<string>;
let issue: (request: ScriptedRequest, res: ServerResponse, n: number) => void;
let clock: number;
const clients: ApiClient[] = [];

const form = (request: ScriptedRequest) => Object.fromEntries(new URLSearchParams(request.body));
const issueToken = (res: ServerResponse, n: number, expiresIn = 3600) => {
  valid.add(`at-${n}`);
  json(res, 200, { token_type: 'Bearer', expires_in: expiresIn, access_token: `at-${n}` });
};

beforeEach(async () => {
  valid = new Set();
  clock = Date.parse('2025-03-01T10:00:00Z');
  issue = (_, res, n) => issueToken(res, n);
  tokens = await startScripted((request, res, n) => issue(request, res, n));
  api = await startScripted((request, res) => {
    const token = String(request.headers.authorization).replace(/^Bearer /, '');
    if (valid.has(token)) return json(res, 200, { value: [] });
    json(res, 401, {
      error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired or is not yet valid.' },
    });
  });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all([tokens.close(), api.close()]);
});

function apiWith(auth: AuthStrategy): ApiClient {
  const client = new ApiClient({
    label: 'the directory API',
    input: 'test',
    baseUrl: `${api.url}/v1.0/`,
    auth,
  });
  clients.push(client);
  return client;
}

function clientCredentials(
  credential: ClientCredential = { secret: () => SECRET },
  explain?: (r: { detail?: string }) => string | undefined,
) {
  return clientCredentialsAuth({
    tokenUrl: `${tokens.url}${TOKEN_PATH}`,
    clientId: 'app-id-1',
    scope: SCOPE,
    credential,
    input: 'test',
    now: () => clock,
    ...(explain ? { explainRefusal: explain } : {}),
  });
}

async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

describe('static credentials', () => {
  it("sends Okta's SSWS token; a 401 to the same token is refused at once, a rotated one is tried once more", async () => {
    let token = 'ssws-old-token';
    const server = await startScripted((request, res) =>
      request.headers.authorization === 'SSWS ssws-new-token'
        ? json(res, 200, [])
        : json(res, 401, { errorSummary: 'Invalid token provided' }),
    );
    try {
      const client = new ApiClient({
        label: "Okta's API",
        input: 'okta',
        baseUrl: server.url,
        auth: sswsAuth(() => token),
      });
      clients.push(client);
      const refused = await failure(client.getJson('api/v1/users'));
      expect(refused).toMatchObject({
        code: 'source_unauthorized',
        status: 401,
        detail: 'Invalid token provided',
      });
      expect(server.requests).toHaveLength(1);
      server.script = (request, res) => {
        token = 'ssws-new-token'; // the secret file was rewritten while the request was under way
        if (request.headers.authorization === 'SSWS ssws-new-token') json(res, 200, []);
        else json(res, 401, {});
      };
      await client.getJson('api/v1/users');
      expect(server.requests.slice(1).map((r) => r.headers.authorization)).toEqual([
        'SSWS ssws-old-token',
        'SSWS ssws-new-token',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('OAuth2 client credentials (RFC 6749 §4.4)', () => {
  it('posts the grant with the secret and scope, and uses one token for many requests', async () => {
    const client = apiWith(clientCredentials());
    for (let i = 0; i < 3; i++) await client.getJson('users');
    expect(tokens.requests).toHaveLength(1);
    expect(tokens.requests[0]?.path).toBe(TOKEN_PATH);
    expect(tokens.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form(tokens.requests[0] as ScriptedRequest)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'app-id-1',
      scope: SCOPE,
      client_secret: SECRET,
    });
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(Array(3).fill('Bearer at-0'));
  });

  it('refreshes a token ahead of its expiry, not before', async () => {
    const client = apiWith(clientCredentials());
    await client.getJson('users');
    clock += 54 * 60_000; // 6 minutes before expiry: the 5-minute margin is not reached
    await client.getJson('users');
    expect(tokens.requests).toHaveLength(1);
    clock += 2 * 60_000; // 4 minutes before expiry
    await client.getJson('users');
    expect(tokens.requests).toHaveLength(2);
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer at-0',
      'Bearer at-0',
      'Bearer at-1',
    ]);
  });

  it('shares one refresh among concurrent requests (single flight)', async () => {
    let answer: (() => void) | undefined;
    issue = (_, res, n) => {
      answer = () => issueToken(res, n);
    };
    const client = apiWith(clientCredentials());
    const reads = Promise.all(Array.from({ length: 5 }, () => client.getJson('users')));
    await expect.poll(() => answer).toBeDefined();
    answer?.();
    await reads;
    expect(tokens.requests).toHaveLength(1);
    expect(api.requests).toHaveLength(5);
  });

  it('refreshes once on a 401, then counts the 401: source_unauthorized', async () => {
    const client = apiWith(clientCredentials());
    await client.getJson('users');
    valid.clear(); // the token was revoked
    await client.getJson('users');
    expect(tokens.requests).toHaveLength(2);
    expect(api.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer at-0',
      'Bearer at-0',
      'Bearer at-1',
    ]);

    issue = (_, res, n) =>
      json(res, 200, { token_type: 'Bearer', expires_in: 3600, access_token: `refused-${n}` });
    valid.clear();
    const error = await failure(client.getJson('users'));
    expect(error).toMatchObject({ code: 'source_unauthorized', retryable: false, status: 401 });
    expect(error.detail).toBe('Access token has expired or is not yet valid.');
    expect(tokens.requests).toHaveLength(3);
    expect(api.requests).toHaveLength(5);
  });

  it('drops its token when the secret changes (a rotated secret file), and asks with the new one', async () => {
    let secret = SECRET;
    const client = apiWith(clientCredentials({ secret: () => secret }));
    await client.getJson('users');
    secret = 'rotated-secret-value-0002';
    await client.getJson('users');
    expect(tokens.requests.map((r) => form(r).client_secret)).toEqual([SECRET, 'rotated-secret-value-0002']);
  });

  it('retries a token request the endpoint answered 503 (a token request changes nothing)', async () => {
    issue = (_, res, n) => (n === 0 ? json(res, 503, {}, { 'retry-after': '0' }) : issueToken(res, n));
    await apiWith(clientCredentials()).getJson('users');
    expect(tokens.requests).toHaveLength(2);
  });

  describe('with a signed client assertion (RFC 7523)', () => {
    let keys: TestKeys;
    beforeAll(async () => {
      keys = await makeTestKeys();
    });
    afterAll(() => keys?.close());

    for (const [algorithm, header, digest] of [
      ['PS256', 'x5t#S256', 'sha256'],
      ['RS256', 'x5t', 'sha1'],
    ] as const) {
      it(`signs ${algorithm} with ${header}, iss = sub = client id, aud = the token URL, a fresh jti`, async () => {
        const credential = {
          certificate: () => keys.certificate,
          privateKey: () => keys.certificateKey,
          algorithm,
        };
        const client = apiWith(clientCredentials(credential));
        await client.getJson('users');
        clock += 58 * 60_000;
        await client.getJson('users');
        const forms = tokens.requests.map(form);
        expect(forms).toHaveLength(2);
        expect(forms[0]).toMatchObject({
          grant_type: 'client_credentials',
          client_id: 'app-id-1',
          scope: SCOPE,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        });
        expect(forms[0]?.client_secret).toBeUndefined();
        const [first, second] = forms.map((f) => f.client_assertion ?? '');
        expect(await verifiesJws(keys, first ?? '', 'app', algorithm)).toBe(true);
        expect(await verifiesJws(keys, first ?? '', 'app', algorithm === 'PS256' ? 'RS256' : 'PS256')).toBe(
          false,
        );
        const { header: jose, claims } = decodeJws(first ?? '');
        expect(jose).toEqual({ alg: algorithm, typ: 'JWT', [header]: await thumbprint(keys, digest) });
        expect(claims).toMatchObject({ iss: 'app-id-1', sub: 'app-id-1', aud: `${tokens.url}${TOKEN_PATH}` });
        expect(Number(claims.exp) - Number(claims.nbf)).toBeLessThanOrEqual(600);
        expect(claims.jti).not.toBe(decodeJws(second ?? '').claims.jti);
      });
    }

    it('refuses a private key that is not the certificate’s, naming neither', async () => {
      const credential = { certificate: () => keys.certificate, privateKey: () => keys.serviceKey };
      const error = await failure(apiWith(clientCredentials(credential)).getJson('users'));
      expect(error).toMatchObject({ code: 'config_invalid' });
      expect(error.message).toBe('The private key does not belong to the client certificate');
      expect(tokens.requests).toHaveLength(0);
    });
  });
});

describe('a Google service account (RFC 7523 §2.1, domain-wide delegation)', () => {
  let keys: TestKeys;
  beforeAll(async () => {
    keys = await makeTestKeys();
  });
  afterAll(() => keys?.close());

  const keyFile = (tokenUri: string) =>
    JSON.stringify({
      type: 'service_account',
      client_email: 'bridge@project-1.iam.gserviceaccount.com',
      private_key_id: 'key-id-1',
      private_key: keys.serviceKey,
      token_uri: tokenUri,
    });

  it('posts an RS256 assertion: iss the account, scope, aud the token URI, an hour long, sub the admin', async () => {
    const auth = googleServiceAccountAuth({
      key: () => keyFile(`${tokens.url}/token`),
      scopes: [
        'https://www.googleapis.com/auth/admin.directory.user.readonly',
        'https://www.googleapis.com/auth/admin.directory.group.readonly',
      ],
      subject: 'admin@corp.example',
      input: 'test',
      now: () => clock,
    });
    await apiWith(auth).getJson('users');
    const sent = form(tokens.requests[0] as ScriptedRequest);
    expect(sent.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(await verifiesJws(keys, sent.assertion ?? '', 'sa', 'RS256')).toBe(true);
    const { header, claims } = decodeJws(sent.assertion ?? '');
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-id-1' });
    expect(claims).toEqual({
      iss: 'bridge@project-1.iam.gserviceaccount.com',
      scope:
        'https://www.googleapis.com/auth/admin.directory.user.readonly https://www.googleapis.com/auth/admin.directory.group.readonly',
      aud: `${tokens.url}/token`,
      iat: clock / 1000,
      exp: clock / 1000 + 3600,
      sub: 'admin@corp.example',
    });
    expect(api.requests[0]?.headers.authorization).toBe('Bearer at-0');
  });

  it('shows a delegation Google refuses as source_unauthorized, in its own words', async () => {
    issue = (_, res) =>
      json(res, 401, {
        error: 'unauthorized_client',
        error_description:
          'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      });
    const auth = googleServiceAccountAuth({
      key: () => keyFile(`${tokens.url}/token`),
      scopes: ['s'],
      subject: 'a@corp.example',
      input: 'test',
    });
    const error = await failure(apiWith(auth).getJson('users'));
    expect(error).toMatchObject({ code: 'source_unauthorized', retryable: false, status: 401 });
    expect(error.detail).toMatch(/^unauthorized_client: Client is unauthorized to retrieve access tokens/);
    expect(error.message).not.toContain('BEGIN PRIVATE KEY');
    expect(api.requests).toHaveLength(0);
  });
});

describe('an expired credential shows as refused (source_unauthorized), not unavailable', () => {
  it('an OAuth2 client secret past its expiry: the vendor words in detail, the plain words in the message', async () => {
    const expired =
      "AADSTS7000222: The provided client secret keys for app 'app-id-1' are expired. Visit the Azure portal to create new keys for your app. Trace ID: 0d1e Correlation ID: 77aa Timestamp: 2025-03-01 10:00:00Z";
    issue = (_, res) =>
      json(res, 401, { error: 'invalid_client', error_description: expired, error_codes: [7000222] });
    const explain = (refusal: { detail?: string }) =>
      refusal.detail?.includes('AADSTS7000222')
        ? 'the client secret has expired: create a new one and set it'
        : '';
    const error = await failure(apiWith(clientCredentials(undefined, explain)).getJson('users'));
    expect(error).toMatchObject({
      code: 'source_unauthorized',
      side: 'source',
      retryable: false,
      status: 401,
    });
    expect(error.detail).toBe(`invalid_client: ${expired}`);
    expect(error.message).toBe(
      `The token endpoint ${tokens.url}${TOKEN_PATH} refused the credential (401) to POST ${TOKEN_PATH}: the client secret has expired: create a new one and set it`,
    );
    expect(
      JSON.stringify({ message: error.message, detail: error.detail, stack: error.stack }),
    ).not.toContain(SECRET);
    expect(tokens.requests).toHaveLength(1);
    expect(api.requests).toHaveLength(0);
  });

  it("Okta's API token, no longer valid: refused, not an outage", async () => {
    const okta = await startOktaApi();
    const client = new OktaApiClient({ orgUrl: okta.url, token: () => '00expired-api-token-from-last-year' });
    try {
      const error = await failure(client.getUser('00u1'));
      expect(error).toMatchObject({ code: 'source_unauthorized', retryable: false, status: 401 });
      expect(error.detail).toBe('Invalid token provided');
      expect(error.message).not.toContain('00expired-api-token-from-last-year');
      expect(okta.requests()).toHaveLength(1);
    } finally {
      await client.close();
      await okta.close();
    }
  });
});

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/api-client/api-client.js';
import { sswsAuth } from '../../../src/api-client/auth/auth-strategy.js';
import {
  clientCredentialsAuth,
  type ClientCredential,
} from '../../../src/api-client/auth/client-credentials.js';
import {
  decodeJws,
  makeTestKeys,
  thumbprint,
  verifiesJws,
  type TestKeys,
} from '../../support/openssl-keys.js';
import { json, startScripted } from '../../support/scripted-http.js';
import { bridgeFailure, formOf, startTokenWorld, type TokenWorld } from '../../support/token-world.js';

// The static and the OAuth2 client-credentials strategies against a scripted token endpoint and an
// API on another origin that accepts only the tokens it issued (test/support/token-world.ts).
// Real: HTTP, undici, node:crypto signing; signatures and thumbprints are checked with the openssl
// command. Faked: the clock the token cache reads (refresh ahead of expiry), nothing else.

const SECRET = 'client-secret-value-for-tests-9d3f';
const TOKEN_PATH = '/tenant-1/oauth2/v2.0/token';
const SCOPE = 'https://graph.example.com/.default';

let world: TokenWorld;
beforeEach(async () => {
  world = await startTokenWorld();
});
afterEach(() => world.close());

function clientCredentials(credential: ClientCredential = { secret: () => SECRET }) {
  return clientCredentialsAuth({
    tokenUrl: `${world.tokens.url}${TOKEN_PATH}`,
    clientId: 'app-id-1',
    scope: SCOPE,
    credential,
    input: 'test',
    now: world.now,
  });
}

const authorizations = () => world.api.requests.map((r) => r.headers.authorization);

describe('static credentials', () => {
  it("sends Okta's SSWS token; a 401 to the same token is refused at once, a rotated one is tried once more", async () => {
    let token = 'ssws-old-token';
    const server = await startScripted((_, res) =>
      json(res, 401, { errorSummary: 'Invalid token provided' }),
    );
    const client = new ApiClient({
      label: "Okta's API",
      input: 'okta',
      baseUrl: server.url,
      auth: sswsAuth(() => token),
    });
    try {
      const refused = await bridgeFailure(client.getJson('api/v1/users'));
      expect(refused).toMatchObject({
        code: 'source_unauthorized',
        status: 401,
        detail: 'Invalid token provided',
      });
      expect(server.requests).toHaveLength(1);
      server.script = (request, res) => {
        token = 'ssws-new-token'; // the secret file was rewritten while the request was under way
        json(res, request.headers.authorization === 'SSWS ssws-new-token' ? 200 : 401, []);
      };
      await client.getJson('api/v1/users');
      expect(server.requests.slice(1).map((r) => r.headers.authorization)).toEqual([
        'SSWS ssws-old-token',
        'SSWS ssws-new-token',
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('OAuth2 client credentials (RFC 6749 §4.4)', () => {
  it('posts the grant with the secret and scope, and uses one token for many requests', async () => {
    const client = world.apiWith(clientCredentials());
    for (let i = 0; i < 3; i++) await client.getJson('users');
    expect(world.tokens.requests).toHaveLength(1);
    expect(world.tokens.requests[0]?.path).toBe(TOKEN_PATH);
    expect(world.tokens.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(formOf(world.tokens.requests[0])).toEqual({
      grant_type: 'client_credentials',
      client_id: 'app-id-1',
      scope: SCOPE,
      client_secret: SECRET,
    });
    expect(authorizations()).toEqual(Array(3).fill('Bearer at-0'));
  });

  it('refreshes a token ahead of its expiry, not before', async () => {
    const client = world.apiWith(clientCredentials());
    await client.getJson('users');
    world.clock += 54 * 60_000; // 6 minutes before expiry: the 5-minute margin is not reached
    await client.getJson('users');
    expect(world.tokens.requests).toHaveLength(1);
    world.clock += 2 * 60_000; // 4 minutes before expiry
    await client.getJson('users');
    expect(world.tokens.requests).toHaveLength(2);
    expect(authorizations()).toEqual(['Bearer at-0', 'Bearer at-0', 'Bearer at-1']);
  });

  it('shares one refresh among concurrent requests (single flight)', async () => {
    let answer: (() => void) | undefined;
    world.issue = (_, res, n) => {
      answer = () => world.issueToken(res, n);
    };
    const client = world.apiWith(clientCredentials());
    const reads = Promise.all(Array.from({ length: 5 }, () => client.getJson('users')));
    await expect.poll(() => answer).toBeDefined();
    answer?.();
    await reads;
    expect(world.tokens.requests).toHaveLength(1);
    expect(world.api.requests).toHaveLength(5);
  });

  it('refreshes once on a 401, then counts the 401: source_unauthorized', async () => {
    const client = world.apiWith(clientCredentials());
    await client.getJson('users');
    world.valid.clear(); // the token was revoked
    await client.getJson('users');
    expect(world.tokens.requests).toHaveLength(2);
    expect(authorizations()).toEqual(['Bearer at-0', 'Bearer at-0', 'Bearer at-1']);

    world.issue = (_, res, n) =>
      json(res, 200, { token_type: 'Bearer', expires_in: 3600, access_token: `x-${n}` });
    world.valid.clear();
    const error = await bridgeFailure(client.getJson('users'));
    expect(error).toMatchObject({ code: 'source_unauthorized', retryable: false, status: 401 });
    expect(error.detail).toBe('Access token has expired or is not yet valid.');
    expect(world.tokens.requests).toHaveLength(3);
    expect(world.api.requests).toHaveLength(5);
  });

  it('drops its token when the secret changes (a rotated secret file), and asks with the new one', async () => {
    let secret = SECRET;
    const client = world.apiWith(clientCredentials({ secret: () => secret }));
    await client.getJson('users');
    secret = 'rotated-secret-value-0002';
    await client.getJson('users');
    expect(world.tokens.requests.map((r) => formOf(r).client_secret)).toEqual([
      SECRET,
      'rotated-secret-value-0002',
    ]);
  });

  it('retries a token request the endpoint answered 503 (a token request changes nothing)', async () => {
    world.issue = (_, res, n) =>
      n === 0 ? json(res, 503, {}, { 'retry-after': '0' }) : world.issueToken(res, n);
    await world.apiWith(clientCredentials()).getJson('users');
    expect(world.tokens.requests).toHaveLength(2);
  });
});

describe('OAuth2 client credentials with a signed client assertion (RFC 7523)', () => {
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
      const client = world.apiWith(clientCredentials(credential));
      await client.getJson('users');
      world.clock += 58 * 60_000;
      await client.getJson('users');
      const forms = world.tokens.requests.map(formOf);
      expect(forms).toHaveLength(2);
      expect(forms[0]).toMatchObject({
        grant_type: 'client_credentials',
        client_id: 'app-id-1',
        scope: SCOPE,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      });
      expect(forms[0]?.client_secret).toBeUndefined();
      const [first = '', second = ''] = forms.map((f) => f.client_assertion ?? '');
      expect(await verifiesJws(keys, first, 'app', algorithm)).toBe(true);
      expect(await verifiesJws(keys, first, 'app', algorithm === 'PS256' ? 'RS256' : 'PS256')).toBe(false);
      const { header: jose, claims } = decodeJws(first);
      expect(jose).toEqual({ alg: algorithm, typ: 'JWT', [header]: await thumbprint(keys, digest) });
      expect(claims).toMatchObject({
        iss: 'app-id-1',
        sub: 'app-id-1',
        aud: `${world.tokens.url}${TOKEN_PATH}`,
      });
      expect(Number(claims.exp) - Number(claims.nbf)).toBeLessThanOrEqual(600);
      expect(claims.jti).not.toBe(decodeJws(second).claims.jti);
    });
  }

  it('refuses a private key that is not the certificate’s, naming neither', async () => {
    const credential = { certificate: () => keys.certificate, privateKey: () => keys.serviceKey };
    const error = await bridgeFailure(world.apiWith(clientCredentials(credential)).getJson('users'));
    expect(error).toMatchObject({ code: 'config_invalid' });
    expect(error.message).toBe('The private key does not belong to the client certificate');
    expect(world.tokens.requests).toHaveLength(0);
  });
});

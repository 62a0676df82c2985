import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleServiceAccountAuth } from '../../../src/api-client/auth/google-service-account.js';
import { decodeJws, makeTestKeys, verifiesJws, type TestKeys } from '../../support/openssl-keys.js';
import { json } from '../../support/scripted-http.js';
import { bridgeFailure, formOf, startTokenWorld, type TokenWorld } from '../../support/token-world.js';

// A Google service account with domain-wide delegation against a scripted token endpoint standing in
// for oauth2.googleapis.com, and an API that accepts only its tokens (test/support/token-world.ts).
// Real: HTTP, node:crypto signing, openssl checking the signature. Faked: the clock.

let world: TokenWorld;
let keys: TestKeys;
beforeAll(async () => {
  keys = await makeTestKeys();
});
afterAll(() => keys?.close());
beforeEach(async () => {
  world = await startTokenWorld();
});
afterEach(() => world.close());

const keyFile = () =>
  JSON.stringify({
    type: 'service_account',
    client_email: 'bridge@project-1.iam.gserviceaccount.com',
    private_key_id: 'key-id-1',
    private_key: keys.serviceKey,
    token_uri: `${world.tokens.url}/token`,
  });

const USERS_SCOPE = 'https://www.googleapis.com/auth/admin.directory.user.readonly';
const GROUPS_SCOPE = 'https://www.googleapis.com/auth/admin.directory.group.readonly';

describe('a Google service account (RFC 7523 §2.1, domain-wide delegation)', () => {
  it('posts an RS256 assertion: iss the account, scope, aud the token URI, an hour long, sub the admin', async () => {
    const auth = googleServiceAccountAuth({
      key: keyFile,
      scopes: [USERS_SCOPE, GROUPS_SCOPE],
      subject: 'admin@corp.example',
      input: 'test',
      now: world.now,
    });
    await world.apiWith(auth).getJson('users');
    const sent = formOf(world.tokens.requests[0]);
    expect(sent.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(await verifiesJws(keys, sent.assertion ?? '', 'sa', 'RS256')).toBe(true);
    const { header, claims } = decodeJws(sent.assertion ?? '');
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-id-1' });
    expect(claims).toEqual({
      iss: 'bridge@project-1.iam.gserviceaccount.com',
      scope: `${USERS_SCOPE} ${GROUPS_SCOPE}`,
      aud: `${world.tokens.url}/token`,
      iat: world.clock / 1000,
      exp: world.clock / 1000 + 3600,
      sub: 'admin@corp.example',
    });
    expect(world.api.requests[0]?.headers.authorization).toBe('Bearer at-0');
  });

  it('shows a delegation Google refuses as source_unauthorized, in its own words', async () => {
    const description =
      'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.';
    world.issue = (_, res) =>
      json(res, 401, { error: 'unauthorized_client', error_description: description });
    const auth = googleServiceAccountAuth({
      key: keyFile,
      scopes: [USERS_SCOPE],
      subject: 'a@corp.example',
      input: 'test',
    });
    const error = await bridgeFailure(world.apiWith(auth).getJson('users'));
    expect(error).toMatchObject({ code: 'source_unauthorized', retryable: false, status: 401 });
    expect(error.detail).toBe(`unauthorized_client: ${description}`);
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain('PRIVATE KEY');
    expect(world.tokens.requests).toHaveLength(1);
    expect(world.api.requests).toHaveLength(0);
  });

  it('names what a key file lacks, never its values', async () => {
    const broken = () =>
      JSON.stringify({ client_email: 'bridge@project-1.iam.gserviceaccount.com', private_key: 7 });
    const auth = googleServiceAccountAuth({
      key: broken,
      scopes: [USERS_SCOPE],
      subject: 'a@corp.example',
      input: 'test',
    });
    const error = await bridgeFailure(world.apiWith(auth).getJson('users'));
    expect(error).toMatchObject({ code: 'config_invalid' });
    expect(error.message).toBe('The Google service account key lacks or mistypes: private_key');
    expect(world.tokens.requests).toHaveLength(0);
  });
});

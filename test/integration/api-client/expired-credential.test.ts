import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientCredentialsAuth } from '../../../src/api-client/auth/client-credentials.js';
import { OktaApiClient } from '../../../src/sources/okta/okta-api.client.js';
import { startOktaApi } from '../../support/okta-api.js';
import { json } from '../../support/scripted-http.js';
import { bridgeFailure, startTokenWorld, type TokenWorld } from '../../support/token-world.js';

// A credential the source no longer takes, at the client level: an OAuth2 client secret past its
// expiry (a scripted token endpoint answering as Microsoft Entra does), and an Okta API token the
// Okta emulation refuses. Real HTTP throughout; nothing of the bridge is faked. (The upstream SCIM
// case is in directory-scim.test.ts.)

const SECRET = 'client-secret-value-for-tests-9d3f';
const TOKEN_PATH = '/tenant-1/oauth2/v2.0/token';

let world: TokenWorld;
beforeEach(async () => {
  world = await startTokenWorld();
});
afterEach(() => world.close());

describe('an expired credential shows as refused (source_unauthorized), not unavailable', () => {
  it('an OAuth2 client secret past its expiry: the vendor words in detail, the plain words in the message', async () => {
    const expired =
      "AADSTS7000222: The provided client secret keys for app 'app-id-1' are expired. Visit the Azure portal to create new keys for your app. Trace ID: 0d1e Correlation ID: 77aa Timestamp: 2025-03-01 10:00:00Z";
    world.issue = (_, res) =>
      json(res, 401, { error: 'invalid_client', error_description: expired, error_codes: [7000222] });
    const auth = clientCredentialsAuth({
      tokenUrl: `${world.tokens.url}${TOKEN_PATH}`,
      clientId: 'app-id-1',
      scope: 'https://graph.example.com/.default',
      credential: { secret: () => SECRET },
      input: 'test',
      explainRefusal: (refusal) =>
        refusal.detail?.includes('AADSTS7000222')
          ? 'the client secret has expired: create a new one and set it'
          : undefined,
    });
    const error = await bridgeFailure(world.apiWith(auth).getJson('users'));
    expect(error).toMatchObject({
      code: 'source_unauthorized',
      side: 'source',
      retryable: false,
      status: 401,
    });
    expect(error.detail).toBe(`invalid_client: ${expired}`);
    expect(error.message).toBe(
      `The token endpoint ${world.tokens.url}${TOKEN_PATH} refused the credential (401) to POST ${TOKEN_PATH}: the client secret has expired: create a new one and set it`,
    );
    expect(
      JSON.stringify({ message: error.message, detail: error.detail, stack: error.stack }),
    ).not.toContain(SECRET);
    expect(world.tokens.requests).toHaveLength(1);
    expect(world.api.requests).toHaveLength(0);
  });

  it("Okta's API token, no longer valid: refused, not an outage", async () => {
    const okta = await startOktaApi();
    const client = new OktaApiClient({ orgUrl: okta.url, token: () => '00expired-api-token-from-last-year' });
    try {
      const error = await bridgeFailure(client.getUser('00u1'));
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

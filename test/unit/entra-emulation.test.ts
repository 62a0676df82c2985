import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { entraFetch, signAssertion, type Json } from '../support/entra/entra-fetch.js';
import {
  generateCertificate,
  startEntraGraph,
  type CertificatePair,
  type EntraGraphServer,
} from '../support/entra-graph.js';

// The Entra emulation itself, over real HTTP, against what Microsoft documents for the client
// credentials grant and Graph v1.0 (../shared/notes/entra-graph.md §7.2): the `entra` source's
// tests are only as good as it. No part of the bridge is used. Delta: entra-emulation-delta.test.ts.

describe('the Entra emulation', () => {
  let entra: EntraGraphServer;
  const { tokenRequest, appWith, tokenFor, get } = entraFetch(() => entra);
  const user = (n: number, extra: Record<string, unknown> = {}) =>
    entra.createUser({
      userPrincipalName: `user${n}@contoso.onmicrosoft.com`,
      displayName: `User ${n}`,
      ...extra,
    });
  let pairs: CertificatePair[];

  beforeAll(async () => {
    pairs = await Promise.all([generateCertificate(), generateCertificate()]);
  });
  beforeEach(async () => {
    entra = await startEntraGraph();
  });
  afterEach(async () => {
    await entra.close();
  });

  it('refuses secrets as Entra does: wrong (or the secret id), expired, unknown app or tenant', async () => {
    const app = appWith('User.Read.All');
    const { form } = app;
    const ok = await tokenRequest(form);
    expect(ok).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 3599 } });
    const wrong = await tokenRequest({ ...form, client_secret: app.secretId });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client', error_codes: [7000215] } });
    expect(Object.keys(wrong.body)).toEqual(
      expect.arrayContaining(['error_description', 'timestamp', 'trace_id', 'correlation_id']),
    );
    expect(wrong.body.error_description).toMatch(
      /^AADSTS7000215: .*client secret value, not the client secret ID/,
    );
    entra.expireSecret(app.clientId);
    expect(await tokenRequest(form)).toMatchObject({ status: 401, body: { error_codes: [7000222] } });
    const unknown = await tokenRequest({ ...form, client_id: randomUUID() });
    expect(unknown).toMatchObject({
      status: 400,
      body: { error: 'unauthorized_client', error_codes: [700016] },
    });
    const elsewhere = await fetch(entra.tokenUrl.replace(entra.tenantId, randomUUID()), {
      method: 'POST',
      body: new URLSearchParams(form),
    });
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_request', error_codes: [90002] });
  });

  it('takes only a form-encoded client_credentials request for exactly the Graph /.default scope', async () => {
    const app = appWith('User.Read.All');
    const { form } = app;
    const scoped = await tokenRequest({ ...form, scope: 'https://graph.microsoft.com/User.Read.All' });
    expect(scoped).toMatchObject({ status: 400, body: { error: 'invalid_scope', error_codes: [1002012] } });
    const json = await fetch(entra.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(form),
    });
    expect(await json.json()).toMatchObject({ error: 'invalid_request', error_codes: [900144] });
    const { client_secret: secret, ...rest } = form;
    const basic = `Basic ${Buffer.from(`${form.client_id}:${encodeURIComponent(secret)}`).toString('base64')}`;
    expect((await tokenRequest(rest, { headers: { authorization: basic } })).status).toBe(200);
    const grant = await tokenRequest({ ...form, grant_type: 'password' });
    expect(grant).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    const secretLifetime = entra.addSecret(app.clientId, { lifetimeSeconds: 60 });
    entra.clock.advance(61_000);
    const aged = await tokenRequest({ ...form, client_secret: secretLifetime.secret });
    expect(aged.body.error_codes).toEqual([7000222]);
  });

  it('verifies certificate assertions: PS256/x5t#S256 and RS256/x5t, signature, thumbprint, claims, time', async () => {
    const app = entra.createApp({ permissions: ['User.Read.All'] });
    const cert = await entra.addCertificate(app.clientId, {
      certificatePem: (pairs[0] as CertificatePair).certificatePem,
    });
    const pair = pairs[0] as CertificatePair;
    const send = (jwt: string) =>
      tokenRequest({
        grant_type: 'client_credentials',
        client_id: app.clientId,
        scope: entra.scope,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: jwt,
      });
    const ps256 = { alg: 'PS256', 'x5t#S256': cert.x5tS256 };
    expect((await send(signAssertion(entra, app.clientId, pair, ps256))).status).toBe(200);
    expect(
      (await send(signAssertion(entra, app.clientId, pair, { alg: 'RS256', x5t: cert.x5t }))).status,
    ).toBe(200);
    const other = pairs[1] as CertificatePair;
    const unregistered = await send(signAssertion(entra, app.clientId, other, ps256));
    expect(unregistered).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_codes: [700027] },
    });
    const jwt = signAssertion(entra, app.clientId, pair, ps256);
    const forged = `${jwt.slice(0, jwt.lastIndexOf('.'))}.${signAssertion(entra, app.clientId, other, ps256).split('.')[2]}`;
    expect((await send(forged)).body.error_codes).toEqual([700027]);
    expect(
      (await send(signAssertion(entra, app.clientId, pair, ps256, { aud: entra.graphUrl }))).body.error_codes,
    ).toEqual([50027]);
    expect(
      (await send(signAssertion(entra, app.clientId, pair, ps256, { iss: randomUUID() }))).body.error_codes,
    ).toEqual([700021]);
    const now = Math.floor(entra.clock.now() / 1000);
    const stale = signAssertion(entra, app.clientId, pair, ps256, { nbf: now - 3600, exp: now - 600 });
    expect((await send(stale)).body.error_codes).toEqual([700024]);
    const endless = signAssertion(entra, app.clientId, pair, ps256, { exp: now + 30 * 86_400 });
    expect((await send(endless)).body.error_codes).toEqual([700024]);
  });

  it('answers 401 InvalidAuthenticationToken without a token, with an expired one and with a revoked one', async () => {
    const none = await get('/v1.0/users', undefined);
    expect(none).toMatchObject({ status: 401, body: { error: { code: 'InvalidAuthenticationToken' } } });
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(Object.keys((none.body.error as Json).innerError as Json)).toEqual([
      'date',
      'request-id',
      'client-request-id',
    ]);
    entra.setTokenLifetime(60);
    const token = await tokenFor('User.Read.All');
    expect((await get('/v1.0/users', token)).status).toBe(200);
    entra.clock.advance(60_000);
    const expired = await get('/v1.0/users', token);
    expect(expired).toMatchObject({
      status: 401,
      body: { error: { message: 'Access token has expired or is not yet valid.' } },
    });
    const fresh = await tokenFor('User.Read.All');
    entra.revokeTokens();
    expect((await get('/v1.0/users', fresh)).status).toBe(401);
  });

  it('answers 403 Authorization_RequestDenied per missing permission, and shows members of unreadable types by type and id only', async () => {
    const groupsOnly = await tokenFor('GroupMember.Read.All');
    const denied = await get('/v1.0/users', groupsOnly);
    expect(denied).toMatchObject({ status: 403, body: { error: { code: 'Authorization_RequestDenied' } } });
    expect((await get('/v1.0/users/delta', groupsOnly)).status).toBe(403);
    const group = entra.createGroup({ displayName: 'Engineering' });
    const alice = user(1, { mail: 'alice@contoso.example' });
    entra.addMember(group.id, alice.id);
    const members = await get(`/v1.0/groups/${group.id}/members`, groupsOnly);
    expect(members.body.value?.[0]).toMatchObject({
      '@odata.type': '#microsoft.graph.user',
      id: alice.id,
      mail: null,
    });
    const both = await tokenFor('GroupMember.Read.All', 'User.Read.All');
    const full = await get(`/v1.0/groups/${group.id}/members`, both);
    expect(full.body.value?.[0]).toMatchObject({ id: alice.id, mail: 'alice@contoso.example' });
    expect((await get(`/v1.0/servicePrincipals/${randomUUID()}/appRoleAssignedTo`, both)).status).toBe(403);
  });

  it('lists users with the 11-property default projection, $select, and one-page lookups by userPrincipalName', async () => {
    const token = await tokenFor('User.Read.All');
    user(1, { accountEnabled: false, employeeId: 'E1' });
    const plain = await get('/v1.0/users', token);
    expect(plain.body['@odata.context']).toBe(`${entra.graphUrl}/v1.0/$metadata#users`);
    const first = plain.body.value?.[0] as Json;
    expect(Object.keys(first).sort()).toEqual([
      'businessPhones',
      'displayName',
      'givenName',
      'id',
      'jobTitle',
      'mail',
      'mobilePhone',
      'officeLocation',
      'preferredLanguage',
      'surname',
      'userPrincipalName',
    ]);
    const selected = await get('/v1.0/users?$select=id,accountEnabled,employeeId', token);
    expect(selected.body.value?.[0]).toEqual({
      id: expect.any(String),
      accountEnabled: false,
      employeeId: 'E1',
    });
    expect(selected.body['@odata.context']).toMatch(/#users\(id,accountEnabled,employeeId\)$/);
    expect((await get('/v1.0/users?$select=nope', token)).body).toMatchObject({
      error: { code: 'Request_BadRequest' },
    });
    expect((await get('/v1.0/users?$select=skills', token)).status).toBe(501);
    const filter = encodeURIComponent("userPrincipalName eq 'USER1@contoso.onmicrosoft.com'");
    expect((await get(`/v1.0/users?$filter=${filter}`, token)).body.value).toHaveLength(1);
    const ne = encodeURIComponent("userType ne 'Guest'");
    expect((await get(`/v1.0/users?$filter=${ne}`, token)).body).toMatchObject({
      error: { code: 'Request_UnsupportedQuery' },
    });
    const advanced = await get(`/v1.0/users?$filter=${ne}&$count=true`, token, {
      ConsistencyLevel: 'eventual',
    });
    expect(advanced.body['@odata.count']).toBe(1);
  });

  it('pages 100 by default and at most 999, with opaque next links that refuse tampering and other queries', async () => {
    const token = await tokenFor('User.Read.All');
    for (let n = 0; n < 150; n++) user(n);
    for (const top of ['1000', '0', 'ten']) {
      const refused = await get(`/v1.0/users?$top=${top}`, token);
      expect(refused).toMatchObject({ status: 400, body: { error: { code: 'Request_UnsupportedQuery' } } });
      expect((refused.body.error as Json).message).toBe(
        `Invalid page size specified: '${top}'. Must be between 1 and 999 inclusive.`,
      );
    }
    const first = await get('/v1.0/users?$select=id', token);
    expect(first.body.value).toHaveLength(100);
    const next = first.body['@odata.nextLink'] as string;
    expect(next.startsWith(`${entra.graphUrl}/v1.0/users?$select=id&$skiptoken=`)).toBe(true);
    const second = await get(next, token);
    expect(second.body.value).toHaveLength(50);
    expect(second.body['@odata.nextLink']).toBeUndefined();
    const token2 = new URL(next).searchParams.get('$skiptoken') as string;
    const tampered = `${token2.slice(0, -2)}${token2.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await get(`/v1.0/users?$select=id&$skiptoken=${tampered}`, token)).status).toBe(400);
    expect((await get(`/v1.0/users?$select=displayName&$skiptoken=${token2}`, token)).status).toBe(400);
    entra.setListScanLimit(1);
    const sparse = encodeURIComponent("startsWith(displayName,'User 14')");
    const empty = await get(`/v1.0/users?$filter=${sparse}&$top=5`, token);
    expect(empty.body.value).toEqual([]);
    expect(empty.body['@odata.nextLink']).toBeDefined();
  });

  it('throttles: scripted 429 with and without Retry-After, 503/504, and the resource-unit bucket', async () => {
    const token = await tokenFor('User.Read.All');
    entra.faults.next(1, { status: 429, retryAfter: 2 });
    const throttled = await get('/v1.0/users', token);
    expect(throttled).toMatchObject({ status: 429, body: { error: { code: 'TooManyRequests' } } });
    expect(throttled.headers.get('retry-after')).toBe('2');
    expect(throttled.headers.get('x-ms-throttle-scope')).toMatch(/^Tenant_Application\/ReadWrite\//);
    entra.faults.next(1, { status: 429, retryAfter: null });
    const bare = await get('/v1.0/users', token);
    expect([bare.status, bare.headers.get('retry-after')]).toEqual([429, null]);
    entra.faults.every(2, { status: 503 });
    expect([(await get('/v1.0/users', token)).status, (await get('/v1.0/users', token)).status]).toEqual([
      200, 503,
    ]);
    entra.faults.clear();
    entra.faults.next(1, { status: 504 });
    expect((await get('/v1.0/users', token)).status).toBe(504);
    entra.setResourceUnitQuota(5);
    const costs = [];
    for (let i = 0; i < 3; i++) costs.push(await get('/v1.0/users', token));
    expect(costs.map((r) => [r.status, r.headers.get('x-ms-resource-unit')])).toEqual([
      [200, '2'],
      [200, '2'],
      [429, '2'],
    ]);
    expect(Number(costs[2]?.headers.get('x-ms-throttle-limit-percentage'))).toBeGreaterThanOrEqual(1);
    expect(Number(costs[2]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('records requests without secrets, and delays changes by the replication lag on its clock', async () => {
    const token = await tokenFor('User.Read.All');
    entra.setReplicationLag(5_000);
    const late = user(1);
    expect((await get('/v1.0/users', token)).body.value).toEqual([]);
    entra.clock.advance(5_000);
    expect((await get('/v1.0/users', token)).body.value?.map((u) => u.id)).toEqual([late.id]);
    const records = entra.requests();
    expect(records[0]).toMatchObject({ host: 'login', method: 'POST', status: 200, app: expect.any(String) });
    expect(records.at(-1)).toMatchObject({ host: 'graph', method: 'GET', path: '/v1.0/users', status: 200 });
    expect(JSON.stringify(records)).not.toMatch(/8Q~/);
  });
});

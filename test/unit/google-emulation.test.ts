import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GoogleWorkspace, plainCalls, signJwt, type ApiBody } from '../support/google-workspace.js';

// The Google Workspace emulation itself, over real HTTP, against what Google's documents say its
// token endpoint and Directory API do: the `google` source's tests are only as good as it. No
// part of the bridge is used. (The audit logs, faults and quota: google-emulation-log.test.ts.)

const AUTH = 'https://www.googleapis.com/auth/';
const DAY = 24 * 3600 * 1000;

describe('the Google Workspace emulation: sign-in and the Directory API', () => {
  let google: GoogleWorkspace;
  let calls: ReturnType<typeof plainCalls>;

  beforeEach(async () => {
    google = await GoogleWorkspace.start({ domain: 'corp.example' });
    calls = plainCalls(google);
  });
  afterEach(async () => {
    await google.close();
  });

  const signIn = (claims?: Record<string, unknown>) => calls.signIn(claims);
  const get = (path: string, token?: string) => calls.get(path, token);
  const reason = (body: ApiBody) => body.error?.errors[0]?.reason;
  const exchange = (assertion: string) => calls.exchange(assertion);
  const users = (query = '') => `/admin/directory/v1/users?customer=my_customer${query}`;

  it('issues a bearer token for a well-signed assertion, and refuses what Google refuses with its bodies', async () => {
    expect((await exchange(google.assertion())).body).toMatchObject({
      expires_in: 3600,
      token_type: 'Bearer',
    });
    const undelegated = google.accounts.create();
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: google.serviceAccount.client_email,
      scope: `${AUTH}admin.directory.user.readonly`,
      aud: google.tokenUrl,
      iat: now,
      exp: now + 60,
      sub: google.adminEmail,
    };
    const forged = signJwt(claims, undelegated.private_key, google.serviceAccount.private_key_id);
    expect(await exchange(forged)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' },
    });
    expect((await exchange(google.assertion({ exp: now + 3601 }))).body.error_description).toMatch(
      /short-lived token \(60 minutes\)/,
    );
    expect((await exchange(google.assertion({ iat: now - 7200, exp: now - 3600 }))).status).toBe(400);
    expect(
      (await exchange(google.assertion({ aud: 'https://elsewhere.example/token' }))).body.error_description,
    ).toBe('Invalid JWT: Failed audience check.');
    expect(await exchange(google.assertion({ sub: 'nobody@corp.example' }))).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid email or User ID' },
    });
    expect(await exchange(google.assertion({ scope: `${AUTH}admin.directory.user` }))).toEqual({
      status: 401,
      body: {
        error: 'unauthorized_client',
        error_description:
          'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      },
    });
    expect((await exchange(google.assertion({}, undelegated))).body.error).toBe('unauthorized_client');
    expect((await exchange(google.assertion({ scope: '' }))).body.error).toBe('invalid_scope');
    google.accounts.deleteKey(google.serviceAccount.client_email, google.serviceAccount.private_key_id);
    expect((await exchange(google.assertion())).body.error_description).toBe('Invalid JWT Signature.');
  });

  it('answers 401 without a token or with one expired, on the clock the test moves', async () => {
    expect(await get(users())).toMatchObject({
      status: 401,
      body: { error: { message: 'Login Required.' } },
    });
    google.setTokenLifetime(60);
    const token = await signIn();
    expect((await get(users(), token)).status).toBe(200);
    google.clock.advance(61_000);
    const expired = await get(users(), token);
    expect(expired.status).toBe(401);
    expect(expired.body.error?.errors[0]).toMatchObject({
      message: 'Invalid Credentials',
      reason: 'authError',
    });
    const fresh = await signIn();
    google.expireAccessTokens();
    expect((await get(users(), fresh)).status).toBe(401);
  });

  it('checks each method’s scopes, and refuses a caller that impersonates no administrator', async () => {
    const groupsOnly = await signIn({ scope: `${AUTH}admin.directory.group.readonly` });
    const refused = await get(users(), groupsOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      message: 'Request had insufficient authentication scopes.',
      errors: [{ reason: 'insufficientPermissions' }],
    });
    expect((await get('/admin/directory/v1/groups?customer=my_customer', groupsOnly)).status).toBe(200);
    const group = google.seed.group({ email: 'eng@corp.example' });
    const membersOnly = await signIn({ scope: `${AUTH}admin.directory.group.member.readonly` });
    expect((await get(`/admin/directory/v1/groups/${group.id}/members`, membersOnly)).status).toBe(200);
    expect((await get('/admin/directory/v1/groups?customer=my_customer', membersOnly)).status).toBe(403);
    expect((await get('/admin/reports/v1/activity/users/all/applications/admin', membersOnly)).status).toBe(
      403,
    );
    const itself = await signIn({ sub: undefined });
    expect((await get(users(), itself)).body.error?.message).toBe(
      'Not Authorized to access this resource/api',
    );
    google.seed.user({ primaryEmail: 'ada@corp.example' });
    const plainUser = await signIn({ sub: 'ada@corp.example' });
    expect(reason((await get(users(), plainUser)).body)).toBe('forbidden');
  });

  it('requires customer or domain, bounds maxResults, and leaves the list key out of an empty page', async () => {
    const token = await signIn();
    expect(await get('/admin/directory/v1/users', token)).toMatchObject({
      status: 400,
      body: { error: { message: 'Bad Request' } },
    });
    expect((await get('/admin/directory/v1/users?domain=other.example', token)).status).toBe(404);
    for (const bad of ['0', '501']) {
      const answer = await get(users(`&maxResults=${bad}`), token);
      expect(answer.body.error?.message).toBe(
        `Invalid value '${bad}'. Values must be within the range: [1, 500]`,
      );
    }
    expect((await get('/admin/directory/v1/groups?customer=my_customer&maxResults=201', token)).status).toBe(
      400,
    );
    for (let i = 0; i < 120; i++) google.seed.user({ primaryEmail: `u${i}@corp.example` });
    expect(((await get(users(), token)).body.users as unknown[]).length).toBe(100);
    const empty = await get('/admin/directory/v1/groups?customer=my_customer', token);
    expect(empty.body).not.toHaveProperty('groups');
    expect((await get(users('&query=email:nobody*'), token)).body).not.toHaveProperty('users');
    const group = google.seed.group({ email: 'empty@corp.example' });
    expect((await get(`/admin/directory/v1/groups/${group.id}/members`, token)).body).not.toHaveProperty(
      'members',
    );
  });

  it('walks pages with a token bound to its query and valid for three days', async () => {
    const token = await signIn();
    const ids = Array.from(
      { length: 5 },
      (_, i) => google.seed.user({ primaryEmail: `p${i}@corp.example` }).id,
    );
    const seen: string[] = [];
    let page = await get(users('&maxResults=2'), token);
    const first = page.body.nextPageToken as string;
    while (page.body.nextPageToken !== undefined || seen.length === 0) {
      seen.push(...(page.body.users as { id: string }[]).map((u) => u.id));
      if (page.body.nextPageToken === undefined) break;
      page = await get(users(`&maxResults=2&pageToken=${page.body.nextPageToken as string}`), token);
    }
    seen.push(...((page.body.users as { id: string }[] | undefined) ?? []).map((u) => u.id));
    expect(new Set(seen)).toEqual(
      new Set([
        ...ids,
        ...[(await get(`/admin/directory/v1/users/${google.adminEmail}`, token)).body.id as string],
      ]),
    );
    expect(seen).toHaveLength(6);
    const replayed = await get(users(`&maxResults=2&query=isSuspended=false&pageToken=${first}`), token);
    expect(replayed).toMatchObject({ status: 400, body: { error: { errors: [{ reason: 'invalid' }] } } });
    expect((await get(users(`&maxResults=2&pageToken=${first}`), token)).status).toBe(200);
    google.clock.advance(3 * DAY + 1000);
    expect((await get(users(`&maxResults=2&pageToken=${first}`), await signIn())).status).toBe(400);
  });

  it('serves projections, partial responses, queries, deleted users and keys by id, address or alias', async () => {
    const token = await signIn();
    const ada = google.users.create({
      primaryEmail: 'ada@corp.example',
      orgUnitPath: '/Eng/Core',
      aliases: ['lovelace@corp.example'],
      customSchemas: { HR: { costCenter: 'R&D' } },
    });
    google.users.create({ primaryEmail: 'bob@corp.example', orgUnitPath: '/Sales', suspended: true });
    expect((await get(users('&query=email:ada*'), token)).body.users).toEqual([
      expect.not.objectContaining({ customSchemas: expect.anything() }),
    ]);
    expect((await get(users('&query=email:ada*&projection=full'), token)).body.users).toMatchObject([
      { customSchemas: { HR: { costCenter: 'R&D' } } },
    ]);
    expect(
      (await get(users('&projection=custom&customFieldMask=HR&query=orgUnitPath=/Eng'), token)).body.users,
    ).toMatchObject([{ id: ada.id, customSchemas: { HR: {} } }]);
    expect((await get(users('&projection=custom'), token)).status).toBe(400);
    const partial = await get(
      users('&fields=nextPageToken,users(id,primaryEmail)&query=isSuspended=true'),
      token,
    );
    expect(partial.body).toEqual({ users: [{ id: expect.any(String), primaryEmail: 'bob@corp.example' }] });
    expect((await get(users('&fields=users(bogus)'), token)).status).toBe(400);
    expect((await get(users('&query=isSuspended=maybe'), token)).body.error?.message).toBe(
      'Invalid Input: query',
    );
    expect((await get(users("&query=orgUnitPath='/Eng' isSuspended=false"), token)).body.users).toMatchObject(
      [{ id: ada.id }],
    );
    for (const key of [ada.id, 'ada@corp.example', 'lovelace@corp.example']) {
      expect((await get(`/admin/directory/v1/users/${key}`, token)).body.id).toBe(ada.id);
    }
    const renamed = google.users.rename(ada.id, 'ada.king@corp.example');
    expect(renamed.etag).not.toBe(ada.etag);
    expect((await get('/admin/directory/v1/users/ada@corp.example', token)).body.error?.message).toBe(
      'Resource Not Found: userKey',
    );
    expect((await get('/admin/directory/v1/users/ada.king@corp.example', token)).body).toMatchObject({
      id: ada.id,
      etag: renamed.etag,
    });
    google.users.delete(ada.id);
    expect((await get(users('&showDeleted=true'), token)).body.users).toMatchObject([
      { id: ada.id, deletionTime: expect.any(String) },
    ]);
  });

  it('lists members with roles, types and statuses: derived, external, CUSTOMER, a foreign subgroup, a cycle', async () => {
    const token = await signIn();
    const parent = google.groups.create({ email: 'parent@corp.example' });
    const child = google.groups.create({ email: 'child@corp.example' });
    const owner = google.users.create({ primaryEmail: 'owner@corp.example' });
    const sleeper = google.users.create({ primaryEmail: 'sleeper@corp.example', suspended: true });
    google.groups.addMember(parent.id, { email: owner.primaryEmail, role: 'OWNER' });
    google.groups.addMember(parent.id, { id: child.id });
    google.groups.addMember(child.id, { email: 'sleeper@corp.example' });
    google.groups.addMember(child.id, { email: 'guest@partner.example' });
    google.groups.addMember(child.id, { type: 'CUSTOMER' });
    expect(() => google.groups.addMember(child.id, { id: parent.id })).toThrow(/cycle/);
    const direct = await get(`/admin/directory/v1/groups/${parent.id}/members`, token);
    expect(direct.body.members).toHaveLength(2);
    expect(
      (await get(`/admin/directory/v1/groups/${parent.id}/members?roles=OWNER`, token)).body.members,
    ).toMatchObject([{ id: owner.id, role: 'OWNER', type: 'USER', status: 'ACTIVE' }]);
    const derived = (
      await get(`/admin/directory/v1/groups/${parent.id}/members?includeDerivedMembership=true`, token)
    ).body.members as Record<string, unknown>[];
    expect(derived).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: sleeper.id, status: 'SUSPENDED' }),
        expect.objectContaining({ email: 'guest@partner.example', type: 'USER' }),
        expect.objectContaining({ id: google.customerId, type: 'CUSTOMER' }),
      ]),
    );
    expect(derived.find((m) => m.email === 'guest@partner.example')).not.toHaveProperty('status');
    const foreign = google.seed.foreignGroup({ email: 'shared@other.example' });
    google.seed.member(child.id, { id: foreign.id });
    expect((await get(`/admin/directory/v1/groups/${foreign.id}/members`, token)).status).toBe(403);
    google.seed.member(child.id, { id: parent.id });
    const cyclic = await get(
      `/admin/directory/v1/groups/${child.id}/members?includeDerivedMembership=true`,
      token,
    );
    expect(cyclic.status).toBe(200);
    expect((await get(`/admin/directory/v1/groups?userKey=${child.id}`, token)).body.groups).toMatchObject([
      { id: parent.id },
    ]);
    expect(
      (await get(`/admin/directory/v1/groups?customer=my_customer&userKey=${child.id}`, token)).status,
    ).toBe(400);
  });
});

import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ERROR_SCHEMA, newUser, scim, startTarget, USER_SCHEMA, type ScimObject } from './scim-http.js';

// Real reference target over real HTTP. The tests of lastModified fake the clock (Date only:
// timers and sockets stay real), so that time moves exactly when they say.

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Freezes Date for the rest of the test; `advance` moves it. */
function fakeClock(): { advance(ms: number): void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  return { advance: (ms) => vi.setSystemTime(Date.now() + ms) };
}

describe('Users', () => {
  it('creates a user: 201, id, meta, schemas, Location, application/scim+json', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'POST', '/Users', {
      body: newUser('ada@example.com', {
        externalId: 'u-1',
        name: { givenName: 'Ada', familyName: 'Lovelace' },
        emails: [{ value: 'ada@example.com', primary: true }],
      }),
    });

    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const user = reply.body;
    expect(user.id).toMatch(UUID);
    expect(user).toMatchObject({
      schemas: [USER_SCHEMA],
      externalId: 'u-1',
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'ada@example.com', primary: true }],
      active: true,
      meta: { resourceType: 'User', location: `${target.scimUrl}/Users/${String(user.id)}` },
    });
    const meta = user.meta as ScimObject;
    expect(meta.created).toMatch(ISO_DATE_TIME);
    expect(meta.lastModified).toBe(meta.created);
    expect(reply.headers.get('location')).toBe(meta.location);
    expect(target.getUser(String(user.id))).toEqual(user);
  });

  it('gets a user by id', async () => {
    const target = await startTarget();
    const created = target.insertUser({ userName: 'ada@example.com' });
    const reply = await scim(target, 'GET', `/Users/${created.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it('answers an unknown id with exactly the platform 404 Error', async () => {
    const target = await startTarget();
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const body =
        method === 'PUT'
          ? newUser('x@example.com')
          : method === 'PATCH'
            ? { schemas: [], Operations: [] }
            : undefined;
      const reply = await scim(target, method, '/Users/no-such-id', { body });
      expect(reply.status).toBe(404);
      expect(reply.body).toStrictEqual({
        schemas: [ERROR_SCHEMA],
        status: '404',
        detail: 'Resource no-such-id not found',
      });
    }
  });

  it('ignores unknown attributes and read-only id and meta on create', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'POST', '/Users', {
      body: newUser('ada@example.com', {
        id: 'mine',
        meta: { created: 'yesterday' },
        nickName: 'Ada',
        password: 'p',
      }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.id).not.toBe('mine');
    expect(reply.body).not.toHaveProperty('nickName');
    expect(reply.body).not.toHaveProperty('password');
    expect((reply.body.meta as ScimObject).created).not.toBe('yesterday');
  });

  it('reads attribute names case-insensitively (RFC 7643 §2.1)', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'POST', '/Users', {
      body: {
        Schemas: [USER_SCHEMA],
        USERNAME: 'ada@example.com',
        Active: false,
        Name: { GIVENNAME: 'Ada' },
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      userName: 'ada@example.com',
      active: false,
      name: { givenName: 'Ada' },
    });
  });

  it('keeps userName unique case-insensitively: 409 uniqueness', async () => {
    const target = await startTarget();
    await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') });
    const reply = await scim(target, 'POST', '/Users', { body: newUser('ADA@Example.COM') });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
    expect(target.users()).toHaveLength(1);
  });

  it.each([
    ['active as a string', { active: 'yes' }, 'active'],
    ['userName as a number', { userName: 5 }, 'userName'],
    ['emails not an array', { emails: { value: 'a@example.com' } }, 'emails'],
    ['an email without value', { emails: [{ type: 'work' }] }, 'emails[0].value'],
    [
      'two primary emails',
      {
        emails: [
          { value: 'a@x', primary: true },
          { value: 'b@x', primary: true },
        ],
      },
      'primary',
    ],
    ['name as a string', { name: 'Ada' }, 'name'],
    ['externalId as a number', { externalId: 7 }, 'externalId'],
    ['an empty userName', { userName: ' ' }, 'userName'],
  ])('rejects %s with 400 invalidValue naming it', async (_label, extra, named) => {
    const target = await startTarget();
    const reply = await scim(target, 'POST', '/Users', { body: newUser('ada@example.com', extra) });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect(reply.body.detail).toContain(named);
    expect(target.users()).toHaveLength(0);
  });

  it('requires userName', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'POST', '/Users', { body: { schemas: [USER_SCHEMA], active: true } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ scimType: 'invalidValue', detail: 'userName is required' });
  });

  it('answers unparseable JSON, a body without the User schema and a non-object with 400 invalidSyntax', async () => {
    const target = await startTarget();
    const broken = await scim(target, 'POST', '/Users', { rawBody: '{"userName": ' });
    const noSchema = await scim(target, 'POST', '/Users', { body: { userName: 'ada@example.com' } });
    const array = await scim(target, 'POST', '/Users', { body: [newUser('ada@example.com')] });
    for (const reply of [broken, noSchema, array]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType: 'invalidSyntax' });
    }
  });

  it('accepts application/json and refuses other media types with 415', async () => {
    const target = await startTarget();
    const json = await scim(target, 'POST', '/Users', {
      body: newUser('ada@example.com'),
      headers: { 'content-type': 'application/json' },
    });
    const text = await scim(target, 'POST', '/Users', {
      rawBody: JSON.stringify(newUser('bob@example.com')),
      headers: { 'content-type': 'text/plain' },
    });
    expect(json.status).toBe(201);
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '415' });
  });

  it('replaces a user with PUT, ignoring read-only id and meta, and moves lastModified', async () => {
    const clock = fakeClock();
    const target = await startTarget();
    const created = target.insertUser({ userName: 'ada@example.com', externalId: 'u-1', displayName: 'Ada' });
    clock.advance(1000);
    const reply = await scim(target, 'PUT', `/Users/${created.id}`, {
      body: newUser('ada.lovelace@example.com', { id: 'other', meta: { created: 'x' }, active: false }),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: created.id, userName: 'ada.lovelace@example.com', active: false });
    // PUT replaces: attributes not sent are gone (RFC 7644 §3.5.1).
    expect(reply.body).not.toHaveProperty('externalId');
    expect(reply.body).not.toHaveProperty('displayName');
    const meta = reply.body.meta as ScimObject;
    expect(meta.created).toBe(created.meta.created);
    expect(Date.parse(String(meta.lastModified)) - Date.parse(created.meta.lastModified)).toBe(1000);
  });

  it('keeps lastModified when a PUT changes nothing', async () => {
    const clock = fakeClock();
    const target = await startTarget();
    const created = target.insertUser({ userName: 'ada@example.com', active: true });
    clock.advance(1000);
    const reply = await scim(target, 'PUT', `/Users/${created.id}`, { body: newUser('ada@example.com') });
    expect((reply.body.meta as ScimObject).lastModified).toBe(created.meta.lastModified);
  });

  it('refuses a PUT that takes another user’s userName (409) and changes nothing', async () => {
    const target = await startTarget();
    target.insertUser({ userName: 'ada@example.com' });
    const bob = target.insertUser({ userName: 'bob@example.com' });
    const reply = await scim(target, 'PUT', `/Users/${bob.id}`, { body: newUser('Ada@example.com') });
    expect(reply.status).toBe(409);
    expect(reply.body.scimType).toBe('uniqueness');
    expect(target.getUser(bob.id)?.userName).toBe('bob@example.com');
  });

  it('lets a user change the case of its own userName', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const reply = await scim(target, 'PUT', `/Users/${ada.id}`, { body: newUser('Ada@Example.com') });
    expect(reply.status).toBe(200);
    expect(target.findUserByUserName('ADA@EXAMPLE.COM')?.userName).toBe('Ada@Example.com');
  });

  it('deletes a user: 204 without a body, then 404', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const reply = await scim(target, 'DELETE', `/Users/${ada.id}`);
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect((await scim(target, 'GET', `/Users/${ada.id}`)).status).toBe(404);
    expect((await scim(target, 'DELETE', `/Users/${ada.id}`)).status).toBe(404);
    expect(target.users()).toEqual([]);
  });

  it('answers unknown endpoints with a SCIM 404 and unsupported methods with 405', async () => {
    const target = await startTarget();
    const unknown = await scim(target, 'GET', '/Devices');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '404' });
    const wrongMethod = await scim(target, 'DELETE', '/Users');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });
});

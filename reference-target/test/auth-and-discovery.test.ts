import { describe, expect, it } from 'vitest';
import { ERROR_SCHEMA, scim, startTarget, TOKEN, type ListBody, type ScimObject } from './scim-http.js';

// Real reference target over real HTTP; nothing is faked.

describe('bearer authentication', () => {
  it.each([
    ['no Authorization header', null],
    ['a wrong token', 'not-the-token'],
    ['a token prefix', TOKEN.slice(0, 5)],
  ])('answers %s with a 401 SCIM Error', async (_label, token) => {
    const target = await startTarget();
    const reply = await scim(target, 'GET', '/Users', { token });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '401' });
  });

  it('refuses an unauthenticated write without applying it', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'POST', '/Users', { token: 'wrong', body: { userName: 'x' } });
    expect(reply.status).toBe(401);
    expect(target.users()).toEqual([]);
  });

  it('accepts the scheme name in any case', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'GET', '/Users', {
      token: null,
      headers: { authorization: `bearer ${TOKEN}` },
    });
    expect(reply.status).toBe(200);
  });

  it('switches the accepted token with setToken (rotation, revocation)', async () => {
    const target = await startTarget();
    target.setToken('rotated-token');
    expect((await scim(target, 'GET', '/Users')).status).toBe(401);
    expect((await scim(target, 'GET', '/Users', { token: 'rotated-token' })).status).toBe(200);
    target.setToken(TOKEN);
    expect((await scim(target, 'GET', '/Users')).status).toBe(200);
  });
});

describe('discovery', () => {
  it('describes the service in ServiceProviderConfig (RFC 7643 §5)', async () => {
    const target = await startTarget({ pageCap: 50 });
    const reply = await scim(target, 'GET', '/ServiceProviderConfig');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      filter: { supported: true, maxResults: 50 },
      bulk: { supported: false },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
    });
    expect(reply.body.authenticationSchemes).toEqual([expect.objectContaining({ type: 'oauthbearertoken' })]);
  });

  it('needs the token for ServiceProviderConfig too', async () => {
    const target = await startTarget();
    expect((await scim(target, 'GET', '/ServiceProviderConfig', { token: null })).status).toBe(401);
  });

  it('lists the User and Group resource types and their schemas', async () => {
    const target = await startTarget();
    const types = await scim<ListBody>(target, 'GET', '/ResourceTypes');
    expect(types.body.Resources.map((type) => [type.name, type.endpoint])).toEqual([
      ['User', '/Users'],
      ['Group', '/Groups'],
    ]);
    const user = await scim(target, 'GET', '/ResourceTypes/User');
    expect(user.body.schema).toBe('urn:ietf:params:scim:schemas:core:2.0:User');
    const schemas = await scim<ListBody>(target, 'GET', '/Schemas');
    expect(schemas.body.totalResults).toBe(2);
    const group = await scim(target, 'GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group');
    const members = (group.body.attributes as ScimObject[]).find((attribute) => attribute.name === 'members');
    expect(members).toMatchObject({ type: 'complex', multiValued: true });
    expect((await scim(target, 'GET', '/ResourceTypes/Device')).status).toBe(404);
  });
});

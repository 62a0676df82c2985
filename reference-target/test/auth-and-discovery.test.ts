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

  it('gives every reference attribute its referenceTypes (RFC 7643 §7, §2.3.7)', async () => {
    const target = await startTarget();
    const schemas = await scim<ListBody>(target, 'GET', '/Schemas');
    const references = schemas.body.Resources.flatMap((schema) =>
      attributesOf(schema).map(({ path, definition }) => ({
        path: `${String(schema.name)} ${path}`,
        definition,
      })),
    ).filter(({ definition }) => definition.type === 'reference');
    expect(references.map(({ path }) => path)).toEqual([
      'User meta.location',
      'Group members.$ref',
      'Group meta.location',
    ]);
    for (const { path, definition } of references) {
      expect(definition.referenceTypes, path).toEqual(expect.arrayContaining([expect.any(String)]));
    }
    const location = references.find(({ path }) => path === 'User meta.location');
    expect(location?.definition.referenceTypes).toEqual(['uri']);
  });

  it('publishes the members sub-attributes value, display, $ref and type on Group (RFC 7643 §8.7.1)', async () => {
    const target = await startTarget();
    const group = await scim(target, 'GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group');
    const members = (group.body.attributes as ScimObject[]).find((attribute) => attribute.name === 'members');
    const subAttributes = (members?.subAttributes ?? []) as ScimObject[];
    expect(subAttributes.map((attribute) => attribute.name)).toEqual(['value', 'display', '$ref', 'type']);
    expect(subAttributes.find((attribute) => attribute.name === '$ref')).toMatchObject({
      type: 'reference',
      referenceTypes: ['User'],
      multiValued: false,
      mutability: 'immutable',
    });
    expect(subAttributes.find((attribute) => attribute.name === 'type')).toMatchObject({
      type: 'string',
      canonicalValues: ['User'],
      multiValued: false,
      mutability: 'immutable',
    });
  });
});

/** Every attribute and sub-attribute of a schema representation, with its dotted path. */
function attributesOf(schema: ScimObject): { path: string; definition: ScimObject }[] {
  return ((schema.attributes ?? []) as ScimObject[]).flatMap((attribute) => [
    { path: String(attribute.name), definition: attribute },
    ...((attribute.subAttributes ?? []) as ScimObject[]).map((sub) => ({
      path: `${String(attribute.name)}.${String(sub.name)}`,
      definition: sub,
    })),
  ]);
}

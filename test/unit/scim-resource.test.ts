import { describe, expect, it } from 'vitest';
import { listRequestFromQuery, listRequestFromSearch } from '../../src/sources/scim/list-request.js';
import { parseProjection, project, wants } from '../../src/sources/scim/projection.js';
import { assertedAttributes, coerceResource } from '../../src/sources/scim/resource-coerce.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SPEC, USER_SPEC } from '../../src/sources/scim/scim-schema.js';
import { userFromScim, userToScim } from '../../src/sources/scim/user-resource.js';

// Pure: checking resources against the schema, splitting users into managed and extra parts,
// projections and list parameters.

describe('checking a resource against its schema', () => {
  it('spells attributes canonically and keeps extension attributes under their URN', () => {
    const resource = coerceResource(USER_SPEC, {
      USERNAME: 'a@example.com',
      Name: { GIVENNAME: 'A' },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user': { Department: 'D' },
      unknownAttribute: 1,
    });
    expect(resource).toEqual({
      userName: 'a@example.com',
      name: { givenName: 'A' },
      [ENTERPRISE_USER_SCHEMA]: { department: 'D' },
    });
  });

  it('lists every attribute of the wrong type without echoing values', () => {
    expect(() =>
      coerceResource(USER_SPEC, {
        userName: { nested: 'secret-looking' },
        active: 'yes',
        emails: [{ value: 'a@b', primary: 'sometimes' }],
        name: 'A B',
      }),
    ).toThrow(
      'Invalid attribute values: userName: expected a string; active: expected true or false; emails[0].primary: expected true or false; name: expected an object',
    );
  });

  it('accepts numbers where strings are expected, and a single value for a list', () => {
    const resource = coerceResource(USER_SPEC, {
      userName: 'n@example.com',
      [ENTERPRISE_USER_SCHEMA]: { employeeNumber: 4711 },
      emails: { value: 'n@example.com' },
    });
    expect(resource).toMatchObject({
      [ENTERPRISE_USER_SCHEMA]: { employeeNumber: '4711' },
      emails: [{ value: 'n@example.com' }],
    });
  });
});

describe('what a PUT body asserts', () => {
  it('names what the body holds, emptied or not, and neither read-only nor unknown attributes', () => {
    const body = {
      ExternalId: null,
      members: [],
      displayName: 'G',
      id: 'ignored',
      meta: {},
      unknownAttribute: 1,
    };
    expect([...assertedAttributes(GROUP_SPEC, body)].sort()).toEqual([
      'displayName',
      'externalId',
      'members',
    ]);
    expect(coerceResource(GROUP_SPEC, body)).toEqual({ displayName: 'G' });
    const user = { userName: 'u', active: null, [ENTERPRISE_USER_SCHEMA.toLowerCase()]: { manager: null } };
    expect([...assertedAttributes(USER_SPEC, user)].sort()).toEqual([
      'active',
      ENTERPRISE_USER_SCHEMA,
      'userName',
    ]);
  });
});

describe('the managed and extra parts of a user', () => {
  const resource = coerceResource(USER_SPEC, {
    userName: 'ada@example.com',
    externalId: 'ext',
    name: { givenName: 'Ada', familyName: 'Lovelace', honorificPrefix: 'Countess' },
    displayName: 'Ada',
    emails: [{ value: 'ada@example.com', type: 'work', primary: true, display: 'Ada' }, { type: 'home' }],
    phoneNumbers: [{ value: '+44', type: 'work' }],
    [ENTERPRISE_USER_SCHEMA]: { manager: { value: 'boss' } },
    password: 'never stored',
  });

  it('manages userName, name, emails, active and externalId; keeps the rest as extra; drops password', () => {
    const { user, extra } = userFromScim('id-1', resource);
    expect(user).toEqual({
      id: 'id-1',
      userName: 'ada@example.com',
      externalId: 'ext',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      active: true,
    });
    expect(extra).toEqual({
      name: { honorificPrefix: 'Countess' },
      displayName: 'Ada',
      // RFC 7643 §4.1.2: emails.display is readWrite; the platform does not keep it, the bridge does.
      emails: [{ value: 'ada@example.com', type: 'work', display: 'Ada' }],
      phoneNumbers: [{ value: '+44', type: 'work' }],
      [ENTERPRISE_USER_SCHEMA]: { manager: { value: 'boss' } },
    });
    expect(JSON.stringify({ user, extra })).not.toContain('never stored');
  });

  it('joins both parts into the SCIM representation with meta', () => {
    const { user, extra } = userFromScim('id-1', resource);
    const scim = userToScim(
      {
        id: 'id-1',
        user,
        extra: extra ?? undefined,
        createdMs: 0,
        modifiedMs: 1000,
        version: 3,
        groups: ['g-1'],
      },
      'https://bridge.example/scim/v2',
    );
    expect(scim).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE_USER_SCHEMA],
      id: 'id-1',
      name: { givenName: 'Ada', familyName: 'Lovelace', honorificPrefix: 'Countess' },
      emails: [{ value: 'ada@example.com', type: 'work', primary: true, display: 'Ada' }],
      groups: [{ value: 'g-1', $ref: 'https://bridge.example/scim/v2/Groups/g-1', type: 'direct' }],
      meta: {
        resourceType: 'User',
        created: '1970-01-01T00:00:00.000Z',
        lastModified: '1970-01-01T00:00:01.000Z',
        location: 'https://bridge.example/scim/v2/Users/id-1',
      },
    });
  });

  it('requires a userName', () => {
    expect(() => userFromScim('x', coerceResource(USER_SPEC, { userName: '  ' }))).toThrow(
      /userName is required/,
    );
  });
});

describe('attributes and excludedAttributes', () => {
  const scim = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE_USER_SCHEMA],
    id: 'u',
    userName: 'u@example.com',
    name: { givenName: 'U', familyName: 'V' },
    emails: [{ value: 'u@example.com', type: 'work' }],
    [ENTERPRISE_USER_SCHEMA]: { department: 'D', costCenter: 'C' },
    meta: { resourceType: 'User' },
  };

  it('returns only the attributes asked for, with id and schemas, sub-attributes and URN paths included', () => {
    const projection = parseProjection(
      USER_SPEC,
      ['UserName', 'name.givenName', `${ENTERPRISE_USER_SCHEMA}:department`],
      undefined,
    );
    expect(project(scim, projection)).toEqual({
      schemas: scim.schemas,
      id: 'u',
      userName: 'u@example.com',
      name: { givenName: 'U' },
      [ENTERPRISE_USER_SCHEMA]: { department: 'D' },
    });
    expect(project(scim, parseProjection(USER_SPEC, ['emails.value'], undefined))).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: 'u',
      emails: [{ value: 'u@example.com' }],
    });
  });

  it('leaves out excluded attributes, never id', () => {
    const projection = parseProjection(USER_SPEC, undefined, [
      'emails',
      'id',
      ENTERPRISE_USER_SCHEMA,
      'name.familyName',
    ]);
    expect(project(scim, projection)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: 'u',
      userName: 'u@example.com',
      name: { givenName: 'U' },
      meta: { resourceType: 'User' },
    });
    expect(wants(parseProjection(GROUP_SPEC, undefined, ['members']), 'members')).toBe(false);
    expect(wants(parseProjection(GROUP_SPEC, ['displayName'], undefined), 'members')).toBe(false);
    expect(wants(parseProjection(GROUP_SPEC, undefined, undefined), 'members')).toBe(true);
  });
});

describe('list parameters', () => {
  it('defaults, bounds and ignores unknown parameters such as aadOptscim062020', () => {
    expect(listRequestFromQuery(USER_SPEC, { aadOptscim062020: '' })).toMatchObject({
      startIndex: 1,
      count: 100,
    });
    expect(listRequestFromQuery(USER_SPEC, { startIndex: '0', count: '-5' })).toMatchObject({
      startIndex: 1,
      count: 0,
    });
    expect(listRequestFromQuery(USER_SPEC, { startIndex: '3', count: '5000' })).toMatchObject({
      startIndex: 3,
      count: 1000,
    });
    expect(() => listRequestFromQuery(USER_SPEC, { count: 'ten' })).toThrow(/"count" must be an integer/);
  });

  it('reads a SearchRequest body (RFC 7644 §3.4.3)', () => {
    const request = listRequestFromSearch(USER_SPEC, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'userName sw "a"',
      attributes: ['userName'],
      startIndex: 2,
      count: 10,
    });
    expect(request).toMatchObject({ startIndex: 2, count: 10, filter: { kind: 'compare', operator: 'sw' } });
    expect(wants(request.projection, 'userName')).toBe(true);
  });
});

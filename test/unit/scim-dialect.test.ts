import { describe, expect, it } from 'vitest';
import { normaliseResource, parseDialectFilter } from '../../src/sources/scim/dialect.js';
import { planMembership } from '../../src/sources/scim/group-membership.js';
import { applyPatch } from '../../src/sources/scim/patch-apply.js';
import { parsePatchRequest } from '../../src/sources/scim/patch-request.js';
import { coerceResource } from '../../src/sources/scim/resource-coerce.js';
import type { JsonObject } from '../../src/sources/scim/scim-json.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SPEC, USER_SPEC } from '../../src/sources/scim/scim-schema.js';
import { userFromScim } from '../../src/sources/scim/user-resource.js';

// Pure: the IdP dialect normaliser, one test per rule, each with the request the IdP really sends
// (Microsoft's and Okta's published SCIM examples).

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patchOf = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });

const ada: JsonObject = {
  externalId: 'ada-ext',
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
};

function patched(resource: JsonObject, body: unknown): JsonObject {
  return coerceResource(USER_SPEC, applyPatch(USER_SPEC, resource, parsePatchRequest(USER_SPEC, body)));
}

describe('the IdP dialect normaliser', () => {
  it('reads capitalised ops (Entra without aadOptscim062020)', () => {
    const body = patchOf(
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      { op: 'Add', path: 'nickName', value: 'Babs' },
      { op: 'Remove', path: 'displayName' },
    );
    expect(parsePatchRequest(USER_SPEC, body).map((operation) => operation.op)).toEqual([
      'replace',
      'add',
      'remove',
    ]);
    expect(patched({ ...ada, displayName: 'Ada' }, body)).toMatchObject({
      name: { familyName: 'updatedFamilyName' },
      nickName: 'Babs',
    });
  });

  it('turns boolean strings into booleans, in PATCH values and on create (Entra "False")', () => {
    expect(patched(ada, patchOf({ op: 'Replace', path: 'active', value: 'False' })).active).toBe(false);
    expect(
      patched({ ...ada, active: false }, patchOf({ op: 'replace', value: { active: 'True' } })).active,
    ).toBe(true);
    const created = coerceResource(
      USER_SPEC,
      normaliseResource(USER_SPEC, {
        userName: 'b@example.com',
        active: 'True',
        emails: [{ value: 'b@x', primary: 'false' }],
      }),
    );
    expect(created).toMatchObject({ active: true, emails: [{ value: 'b@x', primary: false }] });
  });

  it("removes only the listed members with Entra's default member removal", () => {
    const body = patchOf({ op: 'Remove', path: 'members', value: [{ $ref: null, value: 'u-2' }] });
    const plan = planMembership(parsePatchRequest(GROUP_SPEC, body), undefined);
    expect(plan).toMatchObject({ add: [], remove: ['u-2'] });
  });

  it('expands the aadOptscim062020 path-less replace with dotted, filtered and URN-qualified keys', () => {
    const body = patchOf({
      op: 'replace',
      value: {
        displayName: 'Pvlo',
        'emails[type eq "work"].value': 'TestBcwqnm@test.microsoft.com',
        'name.givenName': 'Gtfd',
        'name.familyName': 'Pkqf',
        externalId: 'Eqpj',
        [`${ENTERPRISE_USER_SCHEMA}:employeeNumber`]: 'Wfgh',
      },
    });
    expect(patched(ada, body)).toEqual({
      ...ada,
      displayName: 'Pvlo',
      emails: [{ value: 'TestBcwqnm@test.microsoft.com', type: 'work', primary: true }],
      name: { givenName: 'Gtfd', familyName: 'Pkqf', formatted: 'Ada Lovelace' },
      externalId: 'Eqpj',
      [ENTERPRISE_USER_SCHEMA]: { employeeNumber: 'Wfgh' },
    });
  });

  it('creates the element when add on a filtered path matches nothing, and replaces it when it matches', () => {
    const add = (value: string) => patchOf({ op: 'Add', path: 'phoneNumbers[type eq "work"].value', value });
    const once = patched(ada, add('+1 555 0100'));
    expect(once.phoneNumbers).toEqual([{ type: 'work', value: '+1 555 0100' }]);
    const twice = patched(once, add('+1 555 0199'));
    expect(twice.phoneNumbers).toEqual([{ type: 'work', value: '+1 555 0199' }]);
    const home = patched(
      ada,
      patchOf({ op: 'Add', path: 'emails[type eq "home"].value', value: 'ada@home.example' }),
    );
    expect(home.emails).toEqual([
      { value: 'ada@example.com', type: 'work', primary: true },
      { type: 'home', value: 'ada@home.example' },
    ]);
  });

  it('takes enterprise attributes by full URN path, and manager as a string or an object', () => {
    const asString = patched(
      ada,
      patchOf({ op: 'Add', path: `${ENTERPRISE_USER_SCHEMA}:manager`, value: 'boss-id' }),
    );
    expect(asString[ENTERPRISE_USER_SCHEMA]).toEqual({ manager: { value: 'boss-id' } });
    const asObject = patched(
      ada,
      patchOf({ op: 'replace', path: `${ENTERPRISE_USER_SCHEMA}:manager`, value: { value: 'boss-2' } }),
    );
    expect(asObject[ENTERPRISE_USER_SCHEMA]).toEqual({ manager: { value: 'boss-2' } });
    const department = patched(
      asString,
      patchOf({ op: 'Replace', path: `${ENTERPRISE_USER_SCHEMA}:department`, value: 'R&D' }),
    );
    expect(department[ENTERPRISE_USER_SCHEMA]).toEqual({ manager: { value: 'boss-id' }, department: 'R&D' });
    const created = coerceResource(
      USER_SPEC,
      normaliseResource(USER_SPEC, {
        userName: 'c@example.com',
        [ENTERPRISE_USER_SCHEMA]: { manager: 'boss-id' },
      }),
    );
    expect(created[ENTERPRISE_USER_SCHEMA]).toEqual({ manager: { value: 'boss-id' } });
  });

  it("applies Okta's path-less replace with {active: false}", () => {
    const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };
    expect(patched(ada, body)).toEqual({ ...ada, active: false });
  });

  it("ignores the id in Okta's group rename sent with every membership change", () => {
    const body = patchOf(
      { op: 'replace', value: { id: 'abf4dd94-a4c0-4f67-89c9-76b03340cb9b', displayName: 'Test SCIMv2' } },
      { op: 'add', path: 'members', value: [{ value: 'u-1', display: 'test.user@okta.local' }] },
    );
    const operations = parsePatchRequest(GROUP_SPEC, body);
    expect(operations.map((operation) => operation.pathText)).toEqual(['displayName', 'members']);
    expect(planMembership(operations.slice(1), undefined)).toMatchObject({ add: ['u-1'], remove: [] });
  });

  it("drops read-only attributes, meta, nulls and empty lists from Okta's PUT and Entra's create", () => {
    const okta = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: '23a35c27-23d3-4c03-b4c5-6443c09e7173',
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', familyName: 'User', middleName: null },
      displayName: null,
      groups: [{ value: 'g-1', display: 'Group' }],
      roles: [],
      password: '1mz050nq',
      active: true,
      meta: { resourceType: 'User', created: '2024-01-01T00:00:00Z', location: 'https://elsewhere/Users/x' },
    };
    const resource = coerceResource(USER_SPEC, normaliseResource(USER_SPEC, okta));
    expect(resource).toEqual({
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', familyName: 'User' },
      active: true,
    });
    expect(userFromScim('bridge-id', resource).extra).toBeNull();
  });

  it('reads Entra\'s value path with a sub-attribute in filters: emails[type eq "work"].value eq "…"', () => {
    expect(parseDialectFilter('emails[type eq "work"].value eq "a@b.c"')).toEqual(
      parseDialectFilter('emails[(type eq "work") and value eq "a@b.c"]'),
    );
    expect(() => parseDialectFilter('userName eq')).toThrow(/expected a value/);
  });

  it('answers odd requests with a 400 and a useful detail, never a crash', () => {
    const cases: [unknown, RegExp][] = [
      [{ Operations: [{ op: 'merge', path: 'active', value: true }] }, /"op" must be add, replace or remove/],
      [{ Operations: [] }, /non-empty list/],
      [{ Operations: [{ op: 'remove' }] }, /remove needs a "path"/],
      [{ Operations: [{ op: 'replace', value: 'x' }] }, /"value" must be an object/],
      [{ Operations: [{ op: 'add', path: 'emails[type eq', value: 'x' }] }, /Invalid path/],
      ['text', /PatchOp message/],
    ];
    for (const [body, detail] of cases) {
      expect(() => patched(ada, body)).toThrow(detail);
    }
    expect(() => patched(ada, patchOf({ op: 'replace', path: 'nope', value: 1 }))).toThrow(
      /unknown attribute "nope"/,
    );
    expect(() => patched(ada, patchOf({ op: 'replace', path: 'id', value: 'x' }))).toThrow(/read-only/);
    expect(() => patched(ada, patchOf({ op: 'replace', path: 'active', value: 'maybe' }))).toThrow(
      /active: expected true or false/,
    );
  });
});

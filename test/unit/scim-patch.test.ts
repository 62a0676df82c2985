import { describe, expect, it } from 'vitest';
import { needsCurrentMembers, planMembership } from '../../src/sources/scim/group-membership.js';
import { applyPatch } from '../../src/sources/scim/patch-apply.js';
import { parsePatchRequest } from '../../src/sources/scim/patch-request.js';
import type { JsonObject } from '../../src/sources/scim/scim-json.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SPEC, USER_SPEC } from '../../src/sources/scim/scim-schema.js';

// Pure: the PATCH engine (RFC 7644 §3.5.2) on canonical resources, and the folding of group
// membership operations into one atomic change.

const patchOf = (...Operations: unknown[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations,
});
const apply = (resource: JsonObject, ...operations: unknown[]) =>
  applyPatch(USER_SPEC, resource, parsePatchRequest(USER_SPEC, patchOf(...operations)));

const grace: JsonObject = {
  userName: 'grace@example.com',
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [
    { value: 'grace@example.com', type: 'work', primary: true },
    { value: 'grace@home.example', type: 'home' },
  ],
  active: true,
};

describe('applying PATCH operations', () => {
  it('adds to a multi-valued attribute without duplicating a value already there', () => {
    const out = apply(grace, {
      op: 'add',
      path: 'emails',
      value: [{ value: 'grace@home.example', type: 'home' }, { value: 'g@other.example' }],
    });
    expect(out.emails).toEqual([...(grace.emails as unknown[]), { value: 'g@other.example' }]);
  });

  it('merges a replaced complex attribute: sub-attributes not given stay (RFC 7644 §3.5.2.3)', () => {
    const out = apply(
      { ...grace, name: { ...(grace.name as JsonObject), formatted: 'Grace Hopper' } },
      {
        op: 'replace',
        path: 'name',
        value: { givenName: 'Amazing Grace' },
      },
    );
    expect(out.name).toEqual({ givenName: 'Amazing Grace', familyName: 'Hopper', formatted: 'Grace Hopper' });
  });

  it('matches value filters case-insensitively where the schema says so, with escaped quotes', () => {
    const quoted = { ...grace, emails: [{ value: 'a"b@example.com', type: 'Work' }] };
    const out = apply(quoted, {
      op: 'replace',
      path: 'emails[value eq "A\\"B@example.com"].type',
      value: 'home',
    });
    expect(out.emails).toEqual([{ value: 'a"b@example.com', type: 'home' }]);
    const typed = apply(quoted, { op: 'remove', path: 'emails[type eq "WORK"]' });
    expect(typed.emails).toBeUndefined();
  });

  it('removes a sub-attribute, values selected by a filter, or the whole attribute', () => {
    expect(apply(grace, { op: 'remove', path: 'name.familyName' }).name).toEqual({ givenName: 'Grace' });
    expect(apply(grace, { op: 'remove', path: 'emails[type eq "home"]' }).emails).toEqual([
      { value: 'grace@example.com', type: 'work', primary: true },
    ]);
    expect(apply(grace, { op: 'remove', path: 'emails[type eq "work"].primary' }).emails).toEqual([
      { value: 'grace@example.com', type: 'work' },
      { value: 'grace@home.example', type: 'home' },
    ]);
    expect(apply(grace, { op: 'remove', path: 'emails' }).emails).toBeUndefined();
  });

  it('treats a remove of something absent as done, and a missing parent as no match', () => {
    expect(apply(grace, { op: 'remove', path: 'phoneNumbers[type eq "work"]' })).toEqual(grace);
    expect(apply(grace, { op: 'remove', path: `${ENTERPRISE_USER_SCHEMA}:manager` })).toEqual(grace);
    expect(apply(grace, { op: 'remove', path: 'addresses[type eq "work"].locality' })).toEqual(grace);
  });

  it('keeps one primary value: the one just written (RFC 7643 §2.4)', () => {
    const out = apply(grace, { op: 'replace', path: 'emails[type eq "home"].primary', value: true });
    expect(out.emails).toEqual([
      { value: 'grace@example.com', type: 'work', primary: false },
      { value: 'grace@home.example', type: 'home', primary: true },
    ]);
  });

  it('removes an attribute whose new value is null', () => {
    const out = apply({ ...grace, title: 'Rear Admiral' }, { op: 'replace', path: 'title', value: null });
    expect(out.title).toBeUndefined();
  });

  it('applies all operations or none, and never changes the resource it was given', () => {
    const before = structuredClone(grace);
    expect(() =>
      apply(
        grace,
        { op: 'replace', path: 'active', value: false },
        { op: 'add', path: 'meta.created', value: 'x' },
      ),
    ).toThrow(/read-only/);
    expect(grace).toEqual(before);
  });
});

describe('planning group membership changes', () => {
  // The id delta alone; the members' displays are planned alongside (see the test about them).
  const plan = (current: string[] | undefined, ...operations: unknown[]) => {
    const { displays: _displays, ...delta } = planMembership(
      parsePatchRequest(GROUP_SPEC, patchOf(...operations)),
      current,
    );
    return delta;
  };

  it('turns adds and removes into one id delta, later operations winning', () => {
    expect(
      plan(
        undefined,
        { op: 'add', path: 'members', value: [{ value: 'a' }, { value: 'b' }] },
        { op: 'remove', path: 'members[value eq "b" or value eq "c"]' },
        { op: 'Add', path: 'members', value: [{ value: 'c' }] },
      ),
    ).toEqual({ add: ['a', 'c'], remove: ['b'] });
  });

  it('sets the whole list for replace, and for remove without a value', () => {
    expect(plan(undefined, { op: 'replace', path: 'members', value: [{ value: 'x' }] })).toEqual({
      replace: ['x'],
      add: [],
      remove: [],
    });
    expect(
      plan(
        undefined,
        { op: 'remove', path: 'members' },
        { op: 'add', path: 'members', value: [{ value: 'y' }] },
      ),
    ).toEqual({ replace: ['y'], add: [], remove: [] });
  });

  it('reads the current members only for filters other than value equalities', () => {
    const general = parsePatchRequest(
      GROUP_SPEC,
      patchOf({ op: 'remove', path: 'members[value sw "temp-"]' }),
    );
    expect(needsCurrentMembers(general)).toBe(true);
    expect(planMembership(general, ['temp-1', 'keep', 'temp-2'])).toMatchObject({
      add: [],
      remove: ['temp-1', 'temp-2'],
    });
    const simple = parsePatchRequest(GROUP_SPEC, patchOf({ op: 'remove', path: 'members[value eq "x"]' }));
    expect(needsCurrentMembers(simple)).toBe(false);
  });

  it('refuses member values without an id, and sub-attribute paths', () => {
    expect(() => plan(undefined, { op: 'add', path: 'members', value: [{ display: 'no id' }] })).toThrow(
      /members\[0\] needs a "value"/,
    );
    expect(() => plan(undefined, { op: 'replace', path: 'members.display', value: 'x' })).toThrow(
      /whole values/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { diffGroup, groupBody, PATCH_LIMITS } from '../../src/domain/group-diff.js';
import { diffUser, replacedUser, userBody } from '../../src/domain/user-diff.js';

describe('diffUser', () => {
  const desired = {
    id: 'src-1',
    userName: 'ada@example.com',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ value: 'ada@example.com', primary: true }],
    active: true,
  };

  it('finds nothing when the target matches (e-mail case and absent primary included)', () => {
    const observed = {
      id: 't',
      userName: 'ada@example.com',
      externalId: 'src-1',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'ADA@example.com', primary: true }],
      active: true,
    };
    expect(diffUser(desired, observed)).toEqual({ attributes: [], operations: [] });
  });

  it('builds the smallest PATCH: replace what differs, remove what is gone', () => {
    const observed = {
      id: 't',
      userName: 'Ada@example.com',
      externalId: null,
      name: { givenName: 'Ada', familyName: 'Byron', middleName: 'x' },
      emails: [],
      active: false,
    };
    const diff = diffUser({ ...desired, name: { givenName: 'Ada' } }, observed);
    expect(diff.attributes).toEqual(['userName', 'externalId', 'active', 'name', 'emails']);
    expect(diff.operations).toEqual([
      { op: 'replace', path: 'userName', value: 'ada@example.com' },
      { op: 'replace', path: 'externalId', value: 'src-1' },
      { op: 'replace', path: 'active', value: true },
      { op: 'remove', path: 'name.familyName' },
      { op: 'replace', path: 'emails', value: [{ value: 'ada@example.com', primary: true }] },
    ]);
  });

  it('uses the source id as externalId unless the source gives one', () => {
    expect(userBody(desired)).toMatchObject({ externalId: 'src-1' });
    expect(userBody({ ...desired, externalId: 'idp-42' })).toMatchObject({ externalId: 'idp-42' });
  });
});

describe('replacedUser (a PUT for a platform without PATCH)', () => {
  const held = {
    userName: 'ada@example.com',
    externalId: 'src-1',
    name: { givenName: 'Ada', familyName: 'Lovelace', middleName: 'Byron' },
    emails: [{ value: 'ada@example.com', primary: true, type: 'work' }],
    active: false,
    title: 'Countess',
  };

  it('leaves out the e-mails and name parts the desired user lacks, and keeps what the bridge does not manage', () => {
    const body = replacedUser({ id: 'src-1', userName: 'ada@example.com', name: { familyName: 'L' } }, held);
    expect(body).toEqual({
      userName: 'ada@example.com',
      externalId: 'src-1',
      name: { middleName: 'Byron', familyName: 'L' },
      // Unassigned `active` keeps the platform's value.
      active: false,
      title: 'Countess',
    });
  });

  it('drops a name left with no part, and sets what the desired user holds', () => {
    const { name: _name, ...noMiddle } = held;
    const emails = [{ value: 'a@example.com', primary: true }];
    const desired = { id: 'src-1', userName: 'ada@example.com', emails, active: true };
    expect(replacedUser(desired, { ...noMiddle, name: { givenName: 'Ada' } })).toEqual({
      userName: 'ada@example.com',
      externalId: 'src-1',
      emails,
      active: true,
      title: 'Countess',
    });
  });
});

describe('diffGroup', () => {
  const group = { id: 'g', displayName: 'Eng', members: ['a', 'b'] };

  it('adds and removes members; removal by value filter with an escaped literal', () => {
    const diff = diffGroup(group, ['t-a', 't"b'], {
      id: 'tg',
      displayName: 'Eng',
      externalId: 'g',
      members: [{ value: 't-a' }, { value: 't-old' }],
    });
    expect(diff.attributes).toEqual(['members']);
    expect(diff.requests).toEqual([
      [
        { op: 'add', path: 'members', value: [{ value: 't"b' }] },
        { op: 'remove', path: 'members[value eq "t-old"]' },
      ],
    ]);
  });

  it('splits large membership changes into bounded requests', () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ value: `old-${i}` }));
    const diff = diffGroup(group, [], { id: 'tg', displayName: 'Eng', externalId: 'g', members: many });
    expect(diff.requests).toHaveLength(Math.ceil(250 / PATCH_LIMITS.operationsPerRequest));
    expect(diff.requests.flat()).toHaveLength(250);
  });

  it('builds a full body for POST and PUT', () => {
    expect(groupBody(group, ['t-a'])).toEqual({
      displayName: 'Eng',
      externalId: 'g',
      members: [{ value: 't-a' }],
    });
  });
});

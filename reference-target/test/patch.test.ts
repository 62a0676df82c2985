import { describe, expect, it } from 'vitest';
import type { ReferenceTarget } from '../src/index.js';
import { ERROR_SCHEMA, patchOp, scim, startTarget, type Reply, type ScimObject } from './scim-http.js';

// Real reference target over real HTTP; nothing is faked.

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

async function patchUser(
  target: ReferenceTarget,
  id: string,
  ...operations: Record<string, unknown>[]
): Promise<Reply<ScimObject>> {
  return scim(target, 'PATCH', `/Users/${id}`, { body: patchOp(...operations) });
}

async function withAda(): Promise<{ target: ReferenceTarget; id: string }> {
  const target = await startTarget();
  const ada = target.insertUser({
    userName: 'ada@example.com',
    externalId: 'u-1',
    name: { givenName: 'Ada', familyName: 'Byron' },
    emails: [
      { value: 'ada@work.example', type: 'work', primary: true },
      { value: 'ada@home.example', type: 'home' },
    ],
  });
  return { target, id: ada.id };
}

describe('PATCH /Users (RFC 7644 §3.5.2)', () => {
  it('replaces attributes by path and answers 200 with the resource', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(
      target,
      id,
      { op: 'replace', path: 'active', value: false },
      { op: 'replace', path: 'name.familyName', value: 'Lovelace' },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id,
      active: false,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
    });
    expect(target.getUser(id)).toEqual(reply.body);
  });

  it('reads op names case-insensitively (Entra sends "Replace")', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(
      target,
      id,
      { op: 'Replace', path: 'displayName', value: 'Ada' },
      { op: 'ADD', path: 'externalId', value: 'u-9' },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ displayName: 'Ada', externalId: 'u-9' });
  });

  it('replaces without a path from an object, merging complex attributes and taking dotted keys', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'replace',
      value: {
        active: false,
        name: { familyName: 'Lovelace' },
        'name.givenName': 'Augusta',
        nickName: 'ignored',
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      active: false,
      name: { givenName: 'Augusta', familyName: 'Lovelace' },
    });
    expect(reply.body).not.toHaveProperty('nickName');
  });

  it('adds without a path, appending to multi-valued attributes', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'add',
      value: { emails: [{ value: 'ada@other.example', type: 'other' }], displayName: 'Ada' },
    });
    expect(reply.body.emails).toHaveLength(3);
    expect(reply.body.displayName).toBe('Ada');
  });

  it('replaces through a value-filter path: emails[type eq "work"].value', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'replace',
      path: 'emails[type eq "work"].value',
      value: 'ada@new.example',
    });
    expect(reply.body.emails).toEqual([
      { value: 'ada@new.example', type: 'work', primary: true },
      { value: 'ada@home.example', type: 'home' },
    ]);
  });

  it('adds through a value-filter path that matches nothing by creating the value', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'add',
      path: 'emails[type eq "other"].value',
      value: 'ada@other.example',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.emails).toContainEqual({ type: 'other', value: 'ada@other.example' });
  });

  it('answers replace through a value filter that matches nothing with 400 noTarget (§3.5.2.3)', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'replace',
      path: 'emails[type eq "other"].value',
      value: 'x@example.com',
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType: 'noTarget' });
  });

  it('removes by value filter, by sub-attribute and whole attributes', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(
      target,
      id,
      { op: 'remove', path: 'emails[type eq "home"]' },
      { op: 'remove', path: 'name.familyName' },
      { op: 'remove', path: 'externalId' },
    );
    expect(reply.body.emails).toEqual([{ value: 'ada@work.example', type: 'work', primary: true }]);
    expect(reply.body.name).toEqual({ givenName: 'Ada' });
    expect(reply.body).not.toHaveProperty('externalId');
  });

  it('makes a newly primary email the only primary one', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'replace',
      path: 'emails[type eq "home"].primary',
      value: true,
    });
    expect(reply.body.emails).toEqual([
      { value: 'ada@work.example', type: 'work', primary: false },
      { value: 'ada@home.example', type: 'home', primary: true },
    ]);
  });

  it('reads attribute names in any case, and value filters with the filter rules (RFC 7643 §2.1, §2.2)', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(
      target,
      id,
      { op: 'replace', path: 'Emails[Type eq "WORK"].Value', value: 'ada@new.example' },
      { op: 'replace', path: 'NAME.familyname', value: 'Lovelace' },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.emails).toEqual([
      { value: 'ada@new.example', type: 'work', primary: true },
      { value: 'ada@home.example', type: 'home' },
    ]);
    expect(reply.body.name).toEqual({ givenName: 'Ada', familyName: 'Lovelace' });
  });

  it('replaces a value selected by a filter whole (§3.5.2.3)', async () => {
    const { target, id } = await withAda();
    const reply = await patchUser(target, id, {
      op: 'replace',
      path: 'emails[type eq "work"]',
      value: { value: 'ada@new.example', type: 'work' },
    });
    expect(reply.body.emails).toEqual([
      { value: 'ada@new.example', type: 'work' },
      { value: 'ada@home.example', type: 'home' },
    ]);
  });

  it('removes through a value filter that matches nothing, or an attribute that is not there, without error', async () => {
    const target = await startTarget();
    const bob = target.insertUser({ userName: 'bob@example.com' });
    const reply = await patchUser(
      target,
      bob.id,
      { op: 'remove', path: 'emails[type eq "work"]' },
      { op: 'remove', path: 'name.givenName' },
    );
    expect(reply.status).toBe(200);
    expect(target.getUser(bob.id)).toEqual(reply.body);
  });

  it.each([
    ['remove without a path', { op: 'remove' }, 'noTarget'],
    ['removing the required userName', { op: 'remove', path: 'userName' }, 'mutability'],
    ['replacing the read-only id', { op: 'replace', path: 'id', value: 'x' }, 'mutability'],
    ['an unknown attribute path', { op: 'replace', path: 'nickName', value: 'x' }, 'invalidPath'],
    ['a malformed path', { op: 'replace', path: 'emails[type eq', value: 'x' }, 'invalidPath'],
    ['an unknown op', { op: 'move', path: 'active', value: true }, 'invalidSyntax'],
    ['a wrongly typed value', { op: 'replace', path: 'active', value: 'False' }, 'invalidValue'],
    ['a path-less replace with a non-object', { op: 'replace', value: 'x' }, 'invalidValue'],
    ['a string added to a complex attribute', { op: 'add', path: 'name', value: 'x' }, 'invalidValue'],
    [
      'a sub-attribute of a multi-valued attribute',
      { op: 'replace', path: 'emails.value', value: 'x' },
      'invalidPath',
    ],
    ['a malformed value filter', { op: 'remove', path: 'emails[type eq work]' }, 'invalidPath'],
    [
      'an extension the platform lacks',
      { op: 'replace', path: `${ENTERPRISE}:manager`, value: { value: 'm' } },
      'invalidPath',
    ],
  ])('rejects %s with 400 %s and changes nothing', async (_label, operation, scimType) => {
    const { target, id } = await withAda();
    const before = target.getUser(id);
    const reply = await patchUser(target, id, operation);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '400', scimType });
    expect(target.getUser(id)).toBe(before);
  });

  it('applies all operations or none', async () => {
    const { target, id } = await withAda();
    const before = target.getUser(id);
    const reply = await patchUser(
      target,
      id,
      { op: 'replace', path: 'active', value: false },
      { op: 'remove', path: 'userName' },
    );
    expect(reply.status).toBe(400);
    expect(target.getUser(id)).toBe(before);
  });

  it('refuses a message without the PatchOp schema or Operations with 400 invalidSyntax', async () => {
    const { target, id } = await withAda();
    const noSchema = await scim(target, 'PATCH', `/Users/${id}`, {
      body: { Operations: [{ op: 'replace', path: 'active', value: false }] },
    });
    const noOperations = await scim(target, 'PATCH', `/Users/${id}`, { body: patchOp() });
    expect(noSchema.body.scimType).toBe('invalidSyntax');
    expect(noOperations.body.scimType).toBe('invalidSyntax');
  });

  it('enforces userName uniqueness on PATCH (409)', async () => {
    const { target, id } = await withAda();
    target.insertUser({ userName: 'bob@example.com' });
    const reply = await patchUser(target, id, { op: 'replace', path: 'userName', value: 'BOB@example.com' });
    expect(reply.status).toBe(409);
    expect(reply.body.scimType).toBe('uniqueness');
  });
});

describe('PATCH /Groups members', () => {
  async function withGroup(): Promise<{ target: ReferenceTarget; group: string; users: string[] }> {
    const target = await startTarget();
    const users = ['ada', 'bob', 'cy'].map(
      (name) => target.insertUser({ userName: `${name}@example.com` }).id,
    );
    const group = target.insertGroup({ displayName: 'Engineering', members: [{ value: users[0] ?? '' }] }).id;
    return { target, group, users };
  }

  async function patchGroup(
    target: ReferenceTarget,
    id: string,
    ...operations: Record<string, unknown>[]
  ): Promise<Reply<ScimObject>> {
    return scim(target, 'PATCH', `/Groups/${id}`, { body: patchOp(...operations) });
  }

  it('adds members, once each, filling display', async () => {
    const { target, group, users } = await withGroup();
    const [ada, bob, cy] = users;
    const reply = await patchGroup(target, group, {
      op: 'add',
      path: 'members',
      value: [{ value: bob }, { value: cy }, { value: ada }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.members).toEqual([
      { value: ada, display: 'ada@example.com' },
      { value: bob, display: 'bob@example.com' },
      { value: cy, display: 'cy@example.com' },
    ]);
  });

  it('removes a member by members[value eq "…"], and again without error', async () => {
    const { target, group, users } = await withGroup();
    const path = `members[value eq "${users[0] ?? ''}"]`;
    expect((await patchGroup(target, group, { op: 'remove', path })).body.members).toEqual([]);
    expect((await patchGroup(target, group, { op: 'remove', path })).status).toBe(200);
  });

  it('removes members listed in the value of a remove on "members" (as Entra ID sends it)', async () => {
    const { target, group, users } = await withGroup();
    await patchGroup(target, group, { op: 'add', path: 'members', value: [{ value: users[1] }] });
    const reply = await patchGroup(target, group, {
      op: 'Remove',
      path: 'members',
      value: [{ value: users[0] }],
    });
    expect(reply.body.members).toEqual([{ value: users[1], display: 'bob@example.com' }]);
  });

  it('replaces all members, and renames through a path-less replace', async () => {
    const { target, group, users } = await withGroup();
    const reply = await patchGroup(
      target,
      group,
      { op: 'replace', path: 'members', value: [{ value: users[2] }] },
      { op: 'replace', value: { displayName: 'Platform' } },
    );
    expect(reply.body).toMatchObject({
      displayName: 'Platform',
      members: [{ value: users[2], display: 'cy@example.com' }],
    });
  });

  it('refuses to add a member that is not a user, naming it', async () => {
    const { target, group } = await withGroup();
    const reply = await patchGroup(target, group, {
      op: 'add',
      path: 'members',
      value: [{ value: 'ghost' }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ scimType: 'invalidValue' });
    expect(reply.body.detail).toContain('"ghost"');
  });

  it('refuses to write the read-only member display', async () => {
    const { target, group, users } = await withGroup();
    const reply = await patchGroup(target, group, {
      op: 'replace',
      path: `members[value eq "${users[0] ?? ''}"].display`,
      value: 'x',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.scimType).toBe('mutability');
  });
});

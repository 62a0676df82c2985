import { describe, expect, it } from 'vitest';
import {
  ERROR_SCHEMA,
  filterQuery,
  GROUP_SCHEMA,
  newGroup,
  scim,
  startTarget,
  type ListBody,
  type ScimObject,
} from './scim-http.js';

// Real reference target over real HTTP; nothing is faked.

describe('Groups', () => {
  it('creates a group whose members carry the users’ userNames as display', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const bob = target.insertUser({ userName: 'bob@example.com' });
    const reply = await scim(target, 'POST', '/Groups', {
      body: newGroup('Engineering', {
        externalId: 'g-1',
        members: [{ value: ada.id, display: 'ignored' }, { value: bob.id }],
      }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      schemas: [GROUP_SCHEMA],
      externalId: 'g-1',
      displayName: 'Engineering',
      members: [
        { value: ada.id, display: 'ada@example.com' },
        { value: bob.id, display: 'bob@example.com' },
      ],
      meta: { resourceType: 'Group', location: `${target.scimUrl}/Groups/${String(reply.body.id)}` },
    });
  });

  it('accepts the members $ref and type a client sends, and keeps value and display only', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const reply = await scim(target, 'POST', '/Groups', {
      body: newGroup('Engineering', {
        members: [{ value: ada.id, $ref: ada.meta.location, type: 'User' }],
      }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.members).toEqual([{ value: ada.id, display: 'ada@example.com' }]);
  });

  it('refuses members that are not existing users with 400 invalidValue naming them', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const reply = await scim(target, 'POST', '/Groups', {
      body: newGroup('Engineering', {
        members: [{ value: ada.id }, { value: 'ghost-1' }, { value: 'ghost-2' }],
      }),
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect(reply.body.detail).toContain('"ghost-1"');
    expect(reply.body.detail).toContain('"ghost-2"');
    expect(target.groups()).toEqual([]);
  });

  it('requires displayName and keeps it unique case-insensitively (409 uniqueness)', async () => {
    const target = await startTarget();
    const missing = await scim(target, 'POST', '/Groups', { body: { schemas: [GROUP_SCHEMA] } });
    expect(missing.status).toBe(400);
    expect(missing.body.scimType).toBe('invalidValue');
    target.insertGroup({ displayName: 'Engineering' });
    const duplicate = await scim(target, 'POST', '/Groups', { body: newGroup('ENGINEERING') });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
  });

  it('answers an unknown group id with exactly the platform 404 Error', async () => {
    const target = await startTarget();
    const reply = await scim(target, 'GET', '/Groups/g-404');
    expect(reply.status).toBe(404);
    expect(reply.body).toStrictEqual({
      schemas: [ERROR_SCHEMA],
      status: '404',
      detail: 'Resource g-404 not found',
    });
  });

  it('replaces a group with PUT, members included', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const bob = target.insertUser({ userName: 'bob@example.com' });
    const group = target.insertGroup({ displayName: 'Eng', members: [{ value: ada.id }] });
    const reply = await scim(target, 'PUT', `/Groups/${group.id}`, {
      body: newGroup('Engineering', { members: [{ value: bob.id }] }),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      displayName: 'Engineering',
      members: [{ value: bob.id, display: 'bob@example.com' }],
    });
  });

  it('removes a deleted user from every group', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const bob = target.insertUser({ userName: 'bob@example.com' });
    const one = target.insertGroup({ displayName: 'One', members: [{ value: ada.id }, { value: bob.id }] });
    const two = target.insertGroup({ displayName: 'Two', members: [{ value: ada.id }] });
    expect((await scim(target, 'DELETE', `/Users/${ada.id}`)).status).toBe(204);
    expect(target.getGroup(one.id)?.members).toEqual([{ value: bob.id, display: 'bob@example.com' }]);
    expect(target.getGroup(two.id)?.members).toEqual([]);
    const listed = await scim<ListBody>(
      target,
      'GET',
      `/Groups${filterQuery(`members[value eq "${ada.id}"]`)}`,
    );
    expect(listed.body.totalResults).toBe(0);
  });

  it('keeps member display in step with a renamed user', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const group = target.insertGroup({ displayName: 'One', members: [{ value: ada.id }] });
    target.updateUser(ada.id, { userName: 'ada.lovelace@example.com' });
    const reply = await scim(target, 'GET', `/Groups/${group.id}`);
    expect(reply.body.members).toEqual([{ value: ada.id, display: 'ada.lovelace@example.com' }]);
  });

  it('filters by members[value eq], displayName eq (case-insensitive) and externalId eq (case-exact)', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const eng = target.insertGroup({
      displayName: 'Engineering',
      externalId: 'G-1',
      members: [{ value: ada.id }],
    });
    const ops = target.insertGroup({ displayName: 'Operations', externalId: 'g-2' });
    const ids = async (filter: string): Promise<unknown[]> =>
      (await scim<ListBody>(target, 'GET', `/Groups${filterQuery(filter)}`)).body.Resources.map(
        (group) => group.id,
      );

    expect(await ids(`members[value eq "${ada.id}"]`)).toEqual([eng.id]);
    expect(await ids(`members.value eq "${ada.id}"`)).toEqual([eng.id]);
    expect(await ids('displayName eq "engineering"')).toEqual([eng.id]);
    expect(await ids('externalId eq "G-1"')).toEqual([eng.id]);
    expect(await ids('externalId eq "g-1"')).toEqual([]);
    expect(await ids('displayName eq "Operations" or externalId eq "G-1"')).toEqual([eng.id, ops.id]);
    expect(await ids('not (members pr)')).toEqual([ops.id]);
  });

  it('leaves members out with excludedAttributes=members, on lists and single gets', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const group = target.insertGroup({ displayName: 'Engineering', members: [{ value: ada.id }] });
    const list = await scim<ListBody>(target, 'GET', '/Groups?excludedAttributes=members');
    expect(list.body.Resources[0]).not.toHaveProperty('members');
    expect(list.body.Resources[0]).toMatchObject({
      id: group.id,
      displayName: 'Engineering',
      schemas: [GROUP_SCHEMA],
    });
    const single = await scim(target, 'GET', `/Groups/${group.id}?excludedAttributes=members`);
    expect(single.body).not.toHaveProperty('members');
    expect((single.body.meta as ScimObject).resourceType).toBe('Group');
  });

  it('deletes a group: 204, then 404', async () => {
    const target = await startTarget();
    const group = target.insertGroup({ displayName: 'Engineering' });
    expect((await scim(target, 'DELETE', `/Groups/${group.id}`)).status).toBe(204);
    expect((await scim(target, 'GET', `/Groups/${group.id}`)).status).toBe(404);
    expect(target.findGroupByDisplayName('Engineering')).toBeUndefined();
  });
});

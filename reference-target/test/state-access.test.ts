import { describe, expect, it } from 'vitest';
import { isScimError } from '../src/target-errors.js';
import { startTarget } from './scim-http.js';

// The in-process state access of a real reference target; nothing is faked.

function errorOf(action: () => unknown): { status: number; scimType: string | undefined } {
  try {
    action();
  } catch (error) {
    if (isScimError(error)) return { status: error.status, scimType: error.scimType };
    throw error;
  }
  throw new Error('expected an error');
}

describe('direct state access', () => {
  it('inserts users and groups, with caller-chosen ids when given', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com', externalId: 'u-1' });
    const bob = target.insertUser({ id: 'bob-id', userName: 'bob@example.com', active: false });
    const group = target.insertGroup({
      displayName: 'Engineering',
      members: [{ value: ada.id }, { value: bob.id }],
    });
    expect(bob.id).toBe('bob-id');
    expect(ada).toMatchObject({
      active: true,
      meta: { resourceType: 'User', location: `${target.scimUrl}/Users/${ada.id}` },
    });
    expect(group.members.map((member) => member.display)).toEqual(['ada@example.com', 'bob@example.com']);
    expect(target.users().map((user) => user.id)).toEqual([ada.id, 'bob-id']);
    expect(target.groups()).toEqual([group]);
  });

  it('hands out frozen resources that later changes replace rather than mutate', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com', emails: [{ value: 'ada@example.com' }] });
    expect(Object.isFrozen(ada)).toBe(true);
    expect(Object.isFrozen(ada.emails?.[0])).toBe(true);
    const updated = target.updateUser(ada.id, { active: false });
    expect(ada.active).toBe(true);
    expect(updated.active).toBe(false);
    expect(target.getUser(ada.id)).toBe(updated);
  });

  it('finds users by userName case-insensitively and groups by displayName', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'Ada@Example.com' });
    const group = target.insertGroup({ displayName: 'Engineering' });
    expect(target.findUserByUserName('ada@example.COM')).toBe(ada);
    expect(target.findUserByUserName('nobody')).toBeUndefined();
    expect(target.findGroupByDisplayName('ENGINEERING')).toBe(group);
  });

  it('edits out of band: update removes attributes given as undefined, deletes cascade to groups', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com', externalId: 'u-1' });
    const group = target.insertGroup({ displayName: 'Engineering', members: [{ value: ada.id }] });
    expect(target.updateUser(ada.id, { externalId: undefined })).not.toHaveProperty('externalId');
    expect(target.updateGroup(group.id, { displayName: 'Platform' })).toMatchObject({
      displayName: 'Platform',
      members: [{ value: ada.id }],
    });
    target.deleteUser(ada.id);
    expect(target.getGroup(group.id)?.members).toEqual([]);
    target.deleteGroup(group.id);
    expect(target.groups()).toEqual([]);
  });

  it('enforces the same rules as the API, throwing ScimError', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    expect(errorOf(() => target.insertUser({ userName: 'ADA@example.com' }))).toEqual({
      status: 409,
      scimType: 'uniqueness',
    });
    expect(errorOf(() => target.insertUser({ id: ada.id, userName: 'other@example.com' }))).toMatchObject({
      status: 409,
    });
    expect(errorOf(() => target.insertGroup({ displayName: 'G', members: [{ value: 'ghost' }] }))).toEqual({
      status: 400,
      scimType: 'invalidValue',
    });
    expect(errorOf(() => target.updateUser('ghost', { active: false }))).toEqual({
      status: 404,
      scimType: undefined,
    });
    expect(errorOf(() => target.deleteGroup('ghost'))).toMatchObject({ status: 404 });
  });

  it('clears everything', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    target.insertGroup({ displayName: 'Engineering', members: [{ value: ada.id }] });
    target.clear();
    expect(target.users()).toEqual([]);
    expect(target.groups()).toEqual([]);
    expect(target.insertUser({ userName: 'ada@example.com' }).userName).toBe('ada@example.com');
  });
});

import { describe, expect, it } from 'vitest';
import type { DesiredGroup, DesiredUser } from '../../src/domain/identity.js';
import { planSync, type Known, type PlanInput } from '../../src/domain/sync-plan.js';
import type { ObservedGroup } from '../../src/domain/group-diff.js';
import type { ObservedUser } from '../../src/domain/user-diff.js';

const user = (id: string, extra: Partial<DesiredUser> = {}): DesiredUser => ({
  id,
  userName: `${id}@example.com`,
  active: true,
  ...extra,
});
const observed = (id: string, externalId: string, extra: Partial<ObservedUser> = {}): ObservedUser => ({
  id,
  userName: `${externalId}@example.com`,
  externalId,
  active: true,
  ...extra,
});

function input(partial: Partial<PlanInput>): PlanInput {
  return {
    users: [],
    groups: [],
    knownUsers: new Map(),
    knownGroups: new Map(),
    targetUsers: [],
    targetGroups: [],
    deprovision: 'deactivate',
    ...partial,
  };
}

describe('planSync', () => {
  it('creates what the target lacks and adopts unrecorded matches without a change', () => {
    const plan = planSync(input({ users: [user('a'), user('b')], targetUsers: [observed('t-b', 'b')] }));
    expect(plan.counts.users).toEqual({ create: 1, update: 0, deprovision: 0, unchanged: 1 });
    expect(plan.changes).toEqual([{ kind: 'user', id: 'a', action: 'create', observed: null }]);
    expect(plan.adoptions).toEqual([{ kind: 'user', id: 'b', targetId: 't-b' }]);
  });

  it('matches by recorded target id, then externalId, then userName (case-insensitively)', () => {
    const known = new Map<string, Known>([['a', { targetId: 't-1', managed: true }]]);
    const targetUsers = [
      observed('t-1', 'renamed-elsewhere'),
      observed('t-2', 'b'),
      { id: 't-3', userName: 'C@EXAMPLE.COM', externalId: 'other', active: true },
    ];
    const plan = planSync(
      input({ users: [user('a'), user('b'), user('c')], knownUsers: known, targetUsers }),
    );
    const byId = Object.fromEntries(plan.changes.map((c) => [c.id, c]));
    expect(byId.a).toMatchObject({
      action: 'update',
      targetId: 't-1',
      attributes: ['userName', 'externalId'],
    });
    expect(byId.b).toBeUndefined();
    expect(byId.c).toMatchObject({
      action: 'update',
      targetId: 't-3',
      attributes: ['userName', 'externalId'],
    });
  });

  it('deprovisions only managed identities no longer desired and still active on the target', () => {
    const known = new Map<string, Known>([
      ['gone', { targetId: 't-gone', managed: true }],
      ['inactive', { targetId: 't-inactive', managed: true }],
      ['vanished', { targetId: 't-vanished', managed: true }],
      ['never-managed', { managed: false }],
    ]);
    const targetUsers = [
      observed('t-gone', 'gone'),
      observed('t-inactive', 'inactive', { active: false }),
      observed('t-stranger', 'x'),
    ];
    const plan = planSync(input({ knownUsers: known, targetUsers }));
    expect(plan.changes).toEqual([
      { kind: 'user', id: 'gone', action: 'deprovision', targetId: 't-gone', observed: targetUsers[0] },
    ]);
    expect(plan.unmanagedUsers).toBe(1);
    const deleting = planSync(input({ knownUsers: known, targetUsers, deprovision: 'delete' }));
    expect(deleting.counts.users.deprovision).toBe(2);
  });

  it('compares group members through the users target ids and leaves undesired members out', () => {
    const users = [user('a'), user('b')];
    const groups: DesiredGroup[] = [{ id: 'g', displayName: 'G', members: ['a', 'b', 'not-a-user'] }];
    const targetUsers = [observed('t-a', 'a'), observed('t-b', 'b')];
    const same: ObservedGroup = {
      id: 't-g',
      displayName: 'G',
      externalId: 'g',
      members: [{ value: 't-a' }, { value: 't-b' }],
    };
    expect(
      planSync(input({ users, groups, targetUsers, targetGroups: [same] })).counts.groups.unchanged,
    ).toBe(1);
    const missing = { ...same, members: [{ value: 't-a' }] };
    const plan = planSync(input({ users, groups, targetUsers, targetGroups: [missing] }));
    expect(plan.changes).toContainEqual(
      expect.objectContaining({ kind: 'group', id: 'g', action: 'update', attributes: ['members'] }),
    );
  });

  it('needs a run to sort out a recorded target id that points elsewhere', () => {
    const known = new Map<string, Known>([['a', { targetId: 't-old', managed: true }]]);
    const plan = planSync(
      input({ users: [user('a')], knownUsers: known, targetUsers: [observed('t-new', 'a')] }),
    );
    expect(plan.changes).toEqual([expect.objectContaining({ id: 'a', action: 'adopt', targetId: 't-new' })]);
    expect(plan.counts.users.unchanged).toBe(1);
  });
});

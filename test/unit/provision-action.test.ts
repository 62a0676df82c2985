import { describe, expect, it } from 'vitest';
import type { DesiredGroup, DesiredUser } from '../../src/domain/identity.js';
import { decideAction, type ActionFacts } from '../../src/sync/provision/provision-action.js';

// Pure: what provisioning on demand says applying would do, from the facts it gathered (no I/O).
const ada: DesiredUser = { id: 'u-ada', userName: 'ada@example.com', active: true };
const owner = 'directory:directory';
const facts = (more: Partial<ActionFacts>): ActionFacts => ({
  kind: 'user',
  owner,
  known: { managed: false },
  ...more,
});
const none = { step: { outcome: 'none' as const, managed: false, reason: '' } };

describe('the action of provisioning on demand', () => {
  it('is a conflict when the id belongs to another input, the identity is parked, or its account is held', () => {
    expect(
      decideAction(facts({ desired: ada, match: none, known: { managed: false, owner: 'scim' } })),
    ).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('belongs to the input scim'),
    });
    expect(
      decideAction(facts({ desired: ada, match: none, known: { managed: false, owner, parked: 'c1' } })),
    ).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('parked by conflict c1'),
    });
    const held = {
      step: {
        outcome: 'matched' as const,
        by: 'userName' as const,
        targetId: 't9',
        managed: false,
        heldBy: 'u-bob',
        reason: '',
      },
      observed: { id: 't9', userName: 'ada@example.com' },
    };
    expect(decideAction(facts({ desired: ada, match: held }))).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('managed for user "u-bob"'),
    });
  });

  it('tells a removal the next sync makes apart from nothing to do', () => {
    const leftOut = 'directory.scope.users is false for it';
    expect(decideAction(facts({ leftOut }))).toMatchObject({ action: 'none' });
    const held = { desired: ada, owner, targetId: 't1', managed: true };
    expect(decideAction(facts({ leftOut, known: held }))).toMatchObject({
      action: 'remove-would-happen',
      reason: expect.stringContaining('deprovisions platform user t1'),
    });
    expect(decideAction(facts({ leftOut, known: { ...held, owner: 'okta' } })).action).toBe('none');
  });

  it('counts a group’s members to add, to remove and to provision first', () => {
    const group: DesiredGroup = { id: 'g1', displayName: 'Eng', members: ['u1', 'u2', 'u3'] };
    const match = {
      step: {
        outcome: 'matched' as const,
        by: 'targetId' as const,
        targetId: 'tg',
        managed: true,
        reason: '',
      },
      observed: {
        id: 'tg',
        displayName: 'Engineering',
        externalId: 'g1',
        members: [{ value: 't1' }, { value: 'tx' }],
      },
    };
    const action = decideAction({
      kind: 'group',
      owner,
      known: { managed: true },
      desired: group,
      match,
      members: { targetIds: ['t1', 't2'], provisionFirst: 1 },
    });
    expect(action).toEqual({
      action: 'update',
      reason: 'the platform group tg differs in displayName, members',
      changes: [{ attribute: 'displayName', before: 'Engineering', after: 'Eng' }],
      members: { add: 1, remove: 1, provisionFirst: 1 },
    });
  });
});

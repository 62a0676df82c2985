import { describe, expect, it } from 'vitest';
import type { DesiredGroup, DesiredUser } from '../../src/domain/identity.js';
import { platformExternalId } from '../../src/domain/identity.js';
import {
  deprovisionLookup,
  memberTargetId,
  pickMatch,
  planDeprovision,
  planGroup,
  planUser,
  type Candidate,
  type Known,
} from '../../src/domain/sync-plan.js';
import type { ObservedGroup } from '../../src/domain/group-diff.js';
import type { ObservedUser } from '../../src/domain/user-diff.js';

// Pure: the plan's rules, one identity at a time, given the candidates a listing holds for it (a
// full sync looks them up a chunk at a time in Redis; here a small listing in memory stands in).

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

/** Candidates in matching order: recorded target id, externalId, userName (case-insensitive). */
function candidatesOf(listing: readonly ObservedUser[], desired: DesiredUser, known?: Known) {
  const find = (test: (r: ObservedUser) => boolean): Candidate<ObservedUser> | undefined => {
    const resource = listing.find(test);
    return resource ? { resource, claimed: false } : undefined;
  };
  return [
    known?.targetId ? find((r) => r.id === known.targetId) : undefined,
    find((r) => r.externalId === platformExternalId(desired)),
    find((r) => r.userName.toLowerCase() === desired.userName.toLowerCase()),
  ];
}

describe('the plan of a full sync, identity by identity', () => {
  it('creates what the target lacks and adopts unrecorded matches without a change', () => {
    const listing = [observed('t-b', 'b')];
    const claimed = new Set<string>();
    const [a, b] = [user('a'), user('b')].map((u) =>
      planUser(u, undefined, pickMatch(candidatesOf(listing, u), claimed)),
    );
    expect(a).toEqual({
      counted: 'create',
      change: { kind: 'user', id: 'a', action: 'create', observed: null },
    });
    expect(b).toEqual({
      counted: 'unchanged',
      adoption: { kind: 'user', id: 'b', targetId: 't-b' },
      matched: 't-b',
    });
  });

  it('matches by recorded target id, then externalId, then userName (case-insensitively)', () => {
    const listing = [
      observed('t-1', 'renamed-elsewhere'),
      observed('t-2', 'b'),
      { id: 't-3', userName: 'C@EXAMPLE.COM', externalId: 'other', active: true },
    ];
    const known = new Map<string, Known>([['a', { targetId: 't-1', managed: true }]]);
    const claimed = new Set<string>();
    const decide = (u: DesiredUser) =>
      planUser(u, known.get(u.id), pickMatch(candidatesOf(listing, u, known.get(u.id)), claimed));
    expect(decide(user('a')).change).toMatchObject({
      action: 'update',
      targetId: 't-1',
      attributes: ['userName', 'externalId'],
    });
    expect(decide(user('b')).change).toBeUndefined();
    expect(decide(user('c')).change).toMatchObject({
      action: 'update',
      targetId: 't-3',
      attributes: ['userName', 'externalId'],
    });
  });

  it('gives a resource to the first identity that matches it; a later one looks further', () => {
    const listing = [observed('t-1', 'a'), observed('t-2', 'x', { userName: 'b@example.com' })];
    const claimed = new Set<string>();
    // b's externalId candidate is a's resource (a recorded mapping gone wrong): taken, so its name wins.
    const aFound = pickMatch(candidatesOf(listing, user('a')), claimed);
    const bCandidates: (Candidate<ObservedUser> | undefined)[] = [
      { resource: listing[0]!, claimed: false },
      { resource: listing[1]!, claimed: false },
    ];
    expect(aFound?.id).toBe('t-1');
    expect(pickMatch(bCandidates, claimed)?.id).toBe('t-2');
    // Claimed by an earlier chunk: passed over as well.
    expect(pickMatch([{ resource: listing[0]!, claimed: true }], new Set())).toBeUndefined();
  });

  it('deprovisions only managed identities no longer desired and still active on the target', () => {
    const listing = new Map([
      ['t-gone', observed('t-gone', 'gone')],
      ['t-inactive', observed('t-inactive', 'inactive', { active: false })],
    ]);
    const known: [string, Known][] = [
      ['gone', { targetId: 't-gone', managed: true }],
      ['inactive', { targetId: 't-inactive', managed: true }],
      ['vanished', { targetId: 't-vanished', managed: true }],
      ['never-managed', { managed: false }],
    ];
    const plan = (mode: 'deactivate' | 'delete') =>
      known.flatMap(([id, entry]) => {
        const lookup = deprovisionLookup(entry);
        const resource = lookup && 'targetId' in lookup ? listing.get(lookup.targetId) : undefined;
        const change = planDeprovision('user', id, resource, mode);
        return change ? [change] : [];
      });
    expect(plan('deactivate')).toEqual([
      {
        kind: 'user',
        id: 'gone',
        action: 'deprovision',
        targetId: 't-gone',
        observed: listing.get('t-gone'),
      },
    ]);
    expect(plan('delete')).toHaveLength(2);
    expect(deprovisionLookup({ managed: false, pendingCreate: 'ext-9' })).toEqual({ externalId: 'ext-9' });
  });

  it('compares group members through the users target ids and leaves undesired members out', () => {
    const group: DesiredGroup = { id: 'g', displayName: 'G', members: ['a', 'b', 'not-a-user'] };
    const users = new Map([
      ['a', { desired: true, targetId: 't-a' }],
      ['b', { desired: true, targetId: 't-b' }],
    ]);
    const members = group.members.flatMap((m) => memberTargetId(m, users.get(m)) ?? []);
    expect(members).toEqual(['t-a', 't-b']);
    const same: ObservedGroup = {
      id: 't-g',
      displayName: 'G',
      externalId: 'g',
      members: [{ value: 't-a' }, { value: 't-b' }],
    };
    expect(planGroup(group, members, undefined, same).counted).toBe('unchanged');
    const changed = planGroup(group, members, undefined, {
      ...same,
      members: [{ value: 't-a' }, { value: 't-x' }],
    });
    expect(changed).toMatchObject({
      counted: 'update',
      change: { kind: 'group', id: 'g', action: 'update', attributes: ['members'] },
      removedMembers: ['t-x'],
    });
    expect(memberTargetId('c', { desired: true })).toBe('pending:c');
  });

  it('needs a run to sort out a recorded target id that points elsewhere', () => {
    const found = pickMatch(candidatesOf([observed('t-new', 'a')], user('a')), new Set());
    const decision = planUser(user('a'), { targetId: 't-old', managed: true }, found);
    expect(decision).toMatchObject({
      counted: 'unchanged',
      change: { id: 'a', action: 'adopt', targetId: 't-new' },
    });
  });
});

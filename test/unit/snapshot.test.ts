import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { checkSnapshot, MAX_LISTED_PROBLEMS, validateSnapshot } from '../../src/domain/snapshot.js';

/** Snapshot validation (SPEC §5.4) of a snapshot held in memory: pure, no I/O. */

async function problemsOf(input: unknown): Promise<readonly string[]> {
  try {
    await validateSnapshot(input);
  } catch (error) {
    if (isBridgeError(error, 'invalid_input')) return error.problems;
    throw error;
  }
  throw new Error('expected the snapshot to be refused');
}

const user = (id: string, userName = `${id}@example.com`) => ({ id, userName });

describe('validateSnapshot', () => {
  it('returns the snapshot in the store form: defaults filled in, unknown and null attributes dropped', async () => {
    const snapshot = await validateSnapshot({
      users: [
        {
          id: 'u-1',
          userName: 'ada@example.com',
          name: { givenName: 'Ada', familyName: null, middleName: 'x' },
          emails: [{ value: 'ada@example.com', primary: true, display: 'x' }],
          externalId: null,
          nickName: 'ignored',
        },
        { id: 'u-2', userName: 'bob@example.com', active: false, externalId: 'hr-2', name: {}, emails: [] },
      ],
      groups: [
        { id: 'g-1', displayName: 'Engineering', members: ['u-1', 'u-2', 'u-1'], owner: 'x' },
        { id: 'g-2', displayName: 'Empty' },
      ],
      version: 3,
    });
    expect(snapshot).toEqual({
      users: [
        {
          id: 'u-1',
          userName: 'ada@example.com',
          name: { givenName: 'Ada' },
          emails: [{ value: 'ada@example.com', primary: true }],
          active: true,
        },
        { id: 'u-2', userName: 'bob@example.com', active: false, externalId: 'hr-2' },
      ],
      groups: [
        { id: 'g-1', displayName: 'Engineering', members: ['u-1', 'u-2'] },
        { id: 'g-2', displayName: 'Empty', members: [] },
      ],
    });
    expect(Object.keys(snapshot.users[0] ?? {})).not.toContain('externalId');
  });

  it('refuses with code invalid_input, status 400 and a message counting the problems', async () => {
    try {
      await validateSnapshot({ users: [{ id: 'u-1' }], groups: [] });
      expect.unreachable();
    } catch (error) {
      expect(isBridgeError(error, 'invalid_input')).toBe(true);
      expect(error).toMatchObject({ status: 400, message: 'Invalid snapshot: 1 problem' });
    }
  });

  it('names each missing, mistyped or empty attribute by path', async () => {
    expect(
      await problemsOf({
        users: [
          { userName: 'a@example.com' },
          { id: 7, userName: '  ', name: 'Ada', emails: {}, active: 'yes' },
          { id: 'u-3', userName: 'c@example.com', emails: [{ primary: 1 }, 'x'], externalId: '' },
        ],
        groups: [{ id: 'g-1', members: 'u-1' }, 'group'],
      }),
    ).toEqual([
      'users[0].id: required',
      'users[1].id: not a string',
      'users[1].userName: empty',
      'users[1].name: not an object',
      'users[1].emails: not an array',
      'users[1].active: not true or false',
      'users[2].emails[0].value: required',
      'users[2].emails[0].primary: not true or false',
      'users[2].emails[1]: not an object',
      'users[2].externalId: empty',
      'groups[0].displayName: required',
      'groups[0].members: not an array',
      'groups[1]: not an object',
    ]);
  });

  it('names the top level when it is not a snapshot', async () => {
    expect(await problemsOf(null)).toEqual(['snapshot: not an object']);
    expect(await problemsOf([])).toEqual(['snapshot: not an object']);
    expect(await problemsOf({ users: {} })).toEqual(['users: not an array', 'groups: required']);
  });

  it('finds duplicate user ids, and userNames without regard to case', async () => {
    expect(
      await problemsOf({
        users: [
          user('u-1', 'Ada@Example.com'),
          user('u-2'),
          user('u-1', 'x@example.com'),
          user('u-4', 'ada@example.COM'),
        ],
        groups: [],
      }),
    ).toEqual([
      'users[2].id: duplicate of users[0]',
      'users[3].userName: duplicate of users[0] (case-insensitive)',
    ]);
  });

  it('treats ids as exact: u-1 and U-1 are two users', async () => {
    expect(
      (await validateSnapshot({ users: [user('u-1'), user('U-1', 'other@example.com')], groups: [] })).users,
    ).toHaveLength(2);
  });

  it('finds duplicate group ids and displayNames, and members that are no user of the snapshot', async () => {
    expect(
      await problemsOf({
        users: [user('u-1'), user('u-2')],
        groups: [
          { id: 'g-1', displayName: 'Engineering', members: ['u-1', 'u-99', 'u-2', 'u-"3"'] },
          { id: 'g-1', displayName: 'Sales' },
          { id: 'g-3', displayName: 'ENGINEERING' },
        ],
      }),
    ).toEqual([
      'groups[1].id: duplicate of groups[0]',
      'groups[2].displayName: duplicate of groups[0] (case-insensitive)',
      'groups[0].members[1]: unknown user "u-99"',
      'groups[0].members[3]: unknown user "u-\\"3\\""',
    ]);
  });

  it('finds identities that would share an externalId on the target', async () => {
    expect(
      await problemsOf({
        users: [
          user('u-1'),
          { ...user('u-2'), externalId: 'u-1' },
          { ...user('u-3'), externalId: 'hr-1' },
          { ...user('u-4'), externalId: 'hr-1' },
        ],
        groups: [
          { id: 'g-1', displayName: 'A', externalId: 'x' },
          { id: 'x', displayName: 'B' },
        ],
      }),
    ).toEqual([
      'users[1].externalId: collides with users[0]: both would have externalId "u-1" on the target',
      'users[3].externalId: collides with users[2]: both would have externalId "hr-1" on the target',
      'groups[1].id: collides with groups[0]: both would have externalId "x" on the target',
    ]);
  });

  it('allows one primary e-mail only (RFC 7643 §2.4)', async () => {
    const emails = [
      { value: 'a@example.com', primary: true },
      { value: 'b@example.com', primary: false },
      { value: 'c@example.com', primary: true },
    ];
    expect(await problemsOf({ users: [{ ...user('u-1'), emails }], groups: [] })).toEqual([
      'users[0].emails[2].primary: a second primary e-mail',
    ]);
  });

  it('still checks the rules across items when some items are malformed', async () => {
    expect(
      await problemsOf({
        users: [user('u-1'), { id: 'u-1', userName: 'b@example.com', active: 'no' }],
        groups: [],
      }),
    ).toEqual(['users[1].active: not true or false', 'users[1].id: duplicate of users[0]']);
  });

  it(`lists the first ${MAX_LISTED_PROBLEMS} problems and then the total`, async () => {
    const users = Array.from({ length: 250 }, (_, n) => ({ id: `u-${n}` }));
    const problems = await problemsOf({ users, groups: [] });
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(problems[0]).toBe('users[0].userName: required');
    expect(problems.at(-1)).toBe('… and 150 more (250 problems in total)');
    const check = await checkSnapshot({ users, groups: [] });
    expect(check.ok ? 0 : check.total).toBe(250);
  });

  it('validates 100,000 users and their memberships in linear time', async () => {
    const users = Array.from({ length: 100_000 }, (_, n) => ({
      id: `u-${n}`,
      userName: `user${n}@example.com`,
      name: { givenName: `Given${n}`, familyName: 'Family' },
      emails: [{ value: `user${n}@example.com`, primary: true }],
    }));
    const groups = Array.from({ length: 100 }, (_, g) => ({
      id: `g-${g}`,
      displayName: `Group ${g}`,
      members: Array.from({ length: 1000 }, (_, k) => `u-${g * 1000 + k}`),
    }));
    const started = performance.now();
    const snapshot = await validateSnapshot({ users, groups });
    const elapsed = performance.now() - started;
    expect(snapshot.users).toHaveLength(100_000);
    // Seconds, not minutes: generous for a loaded 2-core machine, far below a quadratic pass.
    expect(elapsed).toBeLessThan(15_000);
  });
});

import { describe, expect, it } from 'vitest';
import { canonicalUserJson, parseStoredUser } from '../../src/domain/canonical.js';
import type { DesiredUser } from '../../src/domain/identity.js';
import { diffUser, userBody, type ObservedUser } from '../../src/domain/user-diff.js';

// Pure: an e-mail's `primary: false` sent explicitly (issue 23, item 3) is kept as sent by the
// stored form, apart from an absent `primary`, while what the platform is sent and compared with
// stays the same for both: no platform write tells them apart.

const said: DesiredUser = {
  id: 'u-1',
  userName: 'ada@example.com',
  emails: [
    { value: 'ada@example.com', type: 'work', primary: true },
    { value: 'ada@home.example', type: 'home', primary: false },
    { value: 'ada@old.example' },
  ],
  active: true,
};
const unsaid: DesiredUser = {
  ...said,
  emails: [said.emails![0]!, { value: 'ada@home.example', type: 'home' }, { value: 'ada@old.example' }],
};

describe("an e-mail's primary", () => {
  it('is stored as sent: true, false, or not said', () => {
    expect(parseStoredUser('u-1', canonicalUserJson(said))).toEqual(said);
    expect(parseStoredUser('u-1', canonicalUserJson(unsaid))).toEqual(unsaid);
    expect(canonicalUserJson(said)).not.toBe(canonicalUserJson(unsaid));
  });

  it('reads the stored form written before false was kept as not said (no rewrite owed)', () => {
    const before = JSON.stringify(['ada@example.com', null, null, null, [['ada@example.com', 0, null]], 1]);
    const user = parseStoredUser('u-1', before);
    expect(user.emails).toEqual([{ value: 'ada@example.com' }]);
    expect(canonicalUserJson(user)).toBe(before);
  });

  it('sends and compares the same to the platform whether false is said or not', () => {
    expect(userBody(said)).toEqual(userBody(unsaid));
    const observed: ObservedUser = {
      id: 't-1',
      userName: 'ada@example.com',
      externalId: 'u-1',
      emails: [
        { value: 'ada@example.com', primary: true },
        { value: 'ada@home.example', primary: false },
        { value: 'ada@old.example', primary: null },
      ],
      active: true,
    };
    expect(diffUser(said, observed)).toEqual({ attributes: [], operations: [] });
    expect(diffUser(unsaid, observed)).toEqual({ attributes: [], operations: [] });
  });
});

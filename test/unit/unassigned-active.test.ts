import { describe, expect, it } from 'vitest';
import { canonicalUserJson, parseStoredUser } from '../../src/domain/canonical.js';
import type { DesiredUser } from '../../src/domain/identity.js';
import { pickMatch, planUser } from '../../src/domain/sync-plan.js';
import { diffUser, userBody, type ObservedUser } from '../../src/domain/user-diff.js';

// Pure: a desired user whose `active` is unassigned (RFC 7643 §2.5; a SCIM PATCH removed it,
// RFC 7644 §3.5.2.2) leaves the platform's value as it is, in every place that reads `active`.

const unassigned: DesiredUser = { id: 'u-1', userName: 'dora@example.com', name: { givenName: 'Dora' } };
const disabled: ObservedUser = {
  id: 't-1',
  userName: 'dora@example.com',
  externalId: 'u-1',
  name: { givenName: 'Dora' },
  active: false,
};

describe('an unassigned active', () => {
  it('is stored as null and read back unassigned, apart from false and true', () => {
    const json = canonicalUserJson(unassigned);
    expect(JSON.parse(json)).toEqual(['dora@example.com', null, 'Dora', null, null, null]);
    expect(parseStoredUser('u-1', json)).toEqual(unassigned);
    expect(parseStoredUser('u-1', json)).not.toHaveProperty('active');
    for (const active of [false, true]) {
      const stored = parseStoredUser('u-1', canonicalUserJson({ ...unassigned, active }));
      expect(stored.active).toBe(active);
    }
  });

  it('is neither compared nor written: a disabled account stays disabled, an enabled one enabled', () => {
    expect(diffUser(unassigned, disabled)).toEqual({ attributes: [], operations: [] });
    expect(diffUser(unassigned, { ...disabled, active: true })).toEqual({ attributes: [], operations: [] });
    expect(diffUser({ ...unassigned, active: true }, disabled).operations).toEqual([
      { op: 'replace', path: 'active', value: true },
    ]);
  });

  it('is left out of a create and of the attributes a PUT sets (the platform keeps or defaults it)', () => {
    expect(userBody(unassigned)).toEqual({
      userName: 'dora@example.com',
      externalId: 'u-1',
      name: { givenName: 'Dora' },
    });
    expect(userBody({ ...unassigned, active: false })).toMatchObject({ active: false });
  });

  it('plans no update of a disabled account in a full sync', () => {
    const found = pickMatch([{ resource: disabled, claimed: false }], new Set());
    expect(planUser(unassigned, { targetId: 't-1', managed: true }, found)).toEqual({
      counted: 'unchanged',
      matched: 't-1',
    });
  });
});

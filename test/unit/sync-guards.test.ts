import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { refuseEmptySource, resolveLimit } from '../../src/sync/sync-guards.js';

// Pure: the guards' arithmetic, without Redis (the integration tests run them in full syncs).
describe('full sync guards', () => {
  it('resolves DEPROVISION_LIMIT to the smaller of its count and its share of the managed users', () => {
    const both = { count: 500, share: 20 };
    expect(resolveLimit(both, 300)).toBe(60);
    expect(resolveLimit(both, 299)).toBe(59);
    expect(resolveLimit(both, 10_000)).toBe(500);
    expect(resolveLimit({ count: 5 }, 10_000)).toBe(5);
    expect(resolveLimit({ share: 20 }, 0)).toBe(0);
    expect(resolveLimit({ share: 100 }, 42)).toBe(42);
  });

  it('refuses an empty source only while the bridge manages users and the request did not allow it', () => {
    const refused = (() => {
      try {
        refuseEmptySource({ name: 'ldap', users: 0 }, 3, false);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(isBridgeError(refused, 'source_empty')).toBe(true);
    expect(refused).toMatchObject({ side: 'source' });
    expect((refused as Error).message).toMatch(
      /^The directory source \(ldap\) lists no users while the bridge manages 3/,
    );
    expect(() => refuseEmptySource({ name: 'snapshot', users: 0 }, 3, true)).not.toThrow();
    expect(() => refuseEmptySource({ name: 'snapshot', users: 0 }, 0, false)).not.toThrow();
    expect(() => refuseEmptySource({ name: 'none' }, 3, false)).not.toThrow();
    expect(() => refuseEmptySource({ name: 'snapshot', users: 1 }, 3, false)).not.toThrow();
  });

  it('says why no user is left when a scope and mapping kept none of those the source listed', () => {
    const messageOf = (scopedOut: Parameters<typeof refuseEmptySource>[3]) => {
      try {
        refuseEmptySource({ name: 'ldap', users: 0 }, 7, false, scopedOut);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    expect(messageOf({ policy: 'candidate', listed: 40, unmappable: 3 })).toMatch(
      /^The directory source \(ldap\) lists 40 users, but the candidate's scope and mapping leave none of them in \(37 out of scope, 3 cannot be mapped\) while the bridge manages 7: a sync that would deprovision them all is refused; nothing was changed\. If no user should be in scope, start the sync again with allowEmpty: true/,
    );
    expect(messageOf({ policy: 'configured', listed: 40, unmappable: 0 })).toMatch(
      /lists 40 users, but its scope and mapping leave none of them in \(40 out of scope\) while/,
    );
    expect(messageOf({ policy: 'candidate', listed: 1, unmappable: 1 })).toMatch(
      /lists 1 user, but the candidate's scope and mapping leave none of them in \(0 out of scope, 1 cannot be mapped\)/,
    );
    expect(messageOf({ policy: 'configured', unmappable: 2 })).toMatch(
      /^The directory source \(ldap\) lists no users in its scope and mapping \(2 cannot be mapped\) while the bridge manages 7:/,
    );
    expect(messageOf({ policy: 'configured', unmappable: 0 })).toMatch(
      /lists no users in its scope and mapping while the bridge manages 7:/,
    );
    expect(() =>
      refuseEmptySource({ name: 'ldap', users: 0 }, 7, true, { policy: 'candidate', unmappable: 1 }),
    ).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { createKeys, familyKey } from '../../src/store/keys.js';

// Pure: the key names existing data is stored under, and the families scripts reach keys through.
describe('the key layout', () => {
  const keys = createKeys('{p}');

  it('keeps the names of stored data', () => {
    expect([
      keys.identity('user', 'x'),
      keys.doc('group', 'x'),
      keys.extra('user', 'x'),
      keys.history('group', 'x'),
      keys.members('x'),
      keys.memberOf(),
      keys.emailIndex(),
      keys.all('user'),
      keys.sequence('group'),
      keys.nameIndex('group'),
      keys.externalIdIndex('user'),
      keys.managed('group'),
      keys.targetIdIndex('user'),
      keys.creating('group'),
      keys.dirty(),
      keys.dirtyForSync(),
      keys.failures(),
      keys.platformGate(),
      keys.platformHealth(),
      keys.sync('s'),
      keys.syncPending('s'),
      keys.syncHeld('s'),
      keys.syncWork('s', 'src:u:ids'),
      keys.syncActive(),
      keys.syncRuns(),
      keys.seenEvent('okta', 'e'),
      keys.adminSession('d'),
      keys.queuePrefix(),
    ]).toEqual([
      '{p}:u:i:x',
      '{p}:g:d:x',
      '{p}:u:x:x',
      '{p}:g:h:x',
      '{p}:g:mem:x',
      '{p}:u:memberof',
      '{p}:u:email',
      '{p}:u:all',
      '{p}:g:seq',
      '{p}:g:name',
      '{p}:u:ext',
      '{p}:g:managed',
      '{p}:u:tid',
      '{p}:g:creating',
      '{p}:dirty',
      '{p}:dirty:sync',
      '{p}:failures',
      '{p}:target:gate',
      '{p}:target:health',
      '{p}:sync:s',
      '{p}:sync:s:pending',
      '{p}:sync:s:held',
      '{p}:sync:s:src:u:ids',
      '{p}:sync:active',
      '{p}:sync:runs',
      '{p}:events:okta:e',
      '{p}:session:d',
      '{p}:q',
    ]);
  });

  it('builds a family member as the builder of that key does', () => {
    expect(familyKey(keys.membersFamily(), 'x')).toBe(keys.members('x'));
    expect(familyKey(keys.syncFamily(), 's')).toBe(keys.sync('s'));
    expect(familyKey(keys.syncPendingFamily(), 's')).toBe(keys.syncPending('s'));
  });
});

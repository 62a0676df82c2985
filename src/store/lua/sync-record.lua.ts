import type { Keys } from '../keys.js';

/**
 * Lua scripts of the full reconciliations' records (src/sync/sync-record.store.ts). Key layout:
 * src/store/keys.ts; every key comes in KEYS, as syncRecordKeys builds them: [1] P:sync:active,
 * [2] P:sync:<id>, [3] P:sync:<id>:pending, [4] P:sync:<id>:held, [5] P:sync:<id>:snapshot,
 * [6] P:sync:runs.
 */

export function syncRecordKeys(keys: Keys, syncId: string): string[] {
  return [
    keys.syncActive(),
    keys.sync(syncId),
    keys.syncPending(syncId),
    keys.syncHeld(syncId),
    keys.syncSnapshot(syncId),
    keys.syncRuns(),
  ];
}

/**
 * Claims the single active-sync slot and creates the record, or reports the sync holding it.
 * ARGV[1] sync id, [2] now, [3] dryRun, [4] trigger, [5] snapshot payload or '', [6] allowEmpty.
 */
export const START = `
local active, record, snapshot, runs = KEYS[1], KEYS[2], KEYS[5], KEYS[6]
local id, now = ARGV[1], ARGV[2]
local holder = redis.call('GET', active)
if holder then return {'busy', holder} end
redis.call('SET', active, id)
redis.call('HSET', record, 'state', 'queued', 'dryRun', ARGV[3], 'trigger', ARGV[4], 'createdAt', now,
  'progress', '{"phase":"queued","done":0,"total":0}', 'allowEmpty', ARGV[6])
redis.call('ZADD', runs, now, id)
if ARGV[5] ~= '' then redis.call('SET', snapshot, ARGV[5], 'EX', 86400) end
return {'started', id}
`;

/**
 * Ends a sync: final state and fields, and frees the active slot if this sync holds it. ARGV[1] sync
 * id, [2] the states (comma-separated) it may end from, '' for any, [3..] field/value pairs.
 * Returns 0 when it is in another state.
 */
export const FINISH = `
local active, record = KEYS[1], KEYS[2]
local id, expected = ARGV[1], ARGV[2]
if expected ~= '' then
  local state = redis.call('HGET', record, 'state')
  if not state or not string.find(',' .. expected .. ',', ',' .. state .. ',', 1, true) then return 0 end
end
for i = 3, #ARGV, 2 do redis.call('HSET', record, ARGV[i], ARGV[i + 1]) end
if redis.call('GET', active) == id then redis.call('DEL', active) end
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
return 1
`;

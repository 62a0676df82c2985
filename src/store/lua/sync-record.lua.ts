import { syncWorkParts, type Keys } from '../keys.js';

/**
 * Lua scripts of the full reconciliations' records (src/store/sync-record.store.ts). Key layout:
 * src/store/keys.ts; every key comes in KEYS, as syncRecordKeys builds them: [1] P:sync:active (slot → id),
 * [2] P:sync:<id>, [3] P:sync:runs, [4] P:sync:<id>:pending, [5] P:sync:<id>:held, then every part
 * of the sync's work (P:sync:<id>:<part>: its staged source, listing index and plan).
 */

export function syncRecordKeys(keys: Keys, syncId: string): string[] {
  const parts = syncWorkParts();
  return [
    keys.syncActive(),
    keys.sync(syncId),
    keys.syncRuns(),
    keys.syncPending(syncId),
    keys.syncHeld(syncId),
    ...[...parts.source, ...parts.run].map((part) => keys.syncWork(syncId, part)),
  ];
}

/**
 * Claims the input's sync slot (one per input: P:sync:active is slot → sync id) and creates the
 * record, or reports the sync holding that slot. ARGV[1] sync id, [2] now, [3] dryRun, [4] trigger,
 * [5] the number of users of a snapshot staged with the request ('' for none), [6] allowEmpty,
 * [7] linkOnly, [8] the input it replaces ('' none), [9] its slot. A staged snapshot's keys lose
 * their time to live only if the sync is held.
 */
export const START = `
local active, record, runs = KEYS[1], KEYS[2], KEYS[3]
local id, now, slot = ARGV[1], ARGV[2], ARGV[9]
local holder = redis.call('HGET', active, slot)
if holder then return {'busy', holder} end
redis.call('HSET', active, slot, id)
redis.call('HSET', record, 'state', 'queued', 'dryRun', ARGV[3], 'trigger', ARGV[4], 'createdAt', now,
  'progress', '{"phase":"queued","done":0,"total":0}', 'allowEmpty', ARGV[6], 'linkOnly', ARGV[7],
  'slot', slot)
if ARGV[5] ~= '' then redis.call('HSET', record, 'source', 'snapshot', 'sourceUsers', ARGV[5], 'staged', '1') end
if ARGV[8] ~= '' then redis.call('HSET', record, 'owner', ARGV[8]) end
redis.call('ZADD', runs, now, id)
return {'started', id}
`;

/**
 * Ends a sync: final state and fields, frees its input's slot if this sync holds it, and deletes its
 * work (UNLINK: a large staging is freed in the background). ARGV[1] sync id, [2] the states
 * (comma-separated) it may end from, '' for any, [3..] field/value pairs. Returns 0 when it is in
 * another state.
 */
export const FINISH = `
local active, record = KEYS[1], KEYS[2]
local id, expected = ARGV[1], ARGV[2]
if expected ~= '' then
  local state = redis.call('HGET', record, 'state')
  if not state or not string.find(',' .. expected .. ',', ',' .. state .. ',', 1, true) then return 0 end
end
for i = 3, #ARGV, 2 do redis.call('HSET', record, ARGV[i], ARGV[i + 1]) end
local slot = redis.call('HGET', record, 'slot')
if slot and redis.call('HGET', active, slot) == id then redis.call('HDEL', active, slot) end
for i = 4, #KEYS do redis.call('UNLINK', KEYS[i]) end
return 1
`;

/**
 * Moves the one active sync of a bridge from before per-input slots (KEYS[1], P:sync:active, held
 * its id as a string) into its input's slot: the record's owner; for none, the first directory's
 * (ARGV[3]), as a sync of the desired state takes now. ARGV[1..2] the family of sync records (stem,
 * suffix). Returns 1 when it moved one.
 */
export const MIGRATE_SLOTS = `
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then return 0 end
local id = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
local record = ARGV[1] .. id .. ARGV[2]
local slot = redis.call('HGET', record, 'owner') or ARGV[3]
redis.call('HSET', KEYS[1], slot, id)
redis.call('HSET', record, 'slot', slot)
return 1
`;

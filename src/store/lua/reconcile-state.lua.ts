import type { IdentityKind } from '../../domain/identity.js';
import { familyArgs, type Keys } from '../keys.js';
import { BULK_HELPERS } from './bulk.lua.js';

/**
 * Lua scripts the reconciler uses to record what it learnt about the target. Key layout:
 * src/store/keys.ts; every key comes in KEYS, built by the functions below in the order each script
 * reads them.
 */

/**
 * KEYS of SET_TARGET, MARK_CREATING and FORGET_TARGET: [1] the identity's hash, [2] its doc,
 * [3] its history, [4] P:K:tid, [5] P:K:managed, [6] P:K:creating.
 */
export function identityStateKeys(keys: Keys, kind: IdentityKind, id: string): string[] {
  return [
    keys.identity(kind, id),
    keys.doc(kind, id),
    keys.history(kind, id),
    keys.targetIdIndex(kind),
    keys.managed(kind),
    keys.creating(kind),
  ];
}

/**
 * Records the target id of an identity and that the bridge manages it (created or adopted), and
 * clears a pending create. ARGV[1] id, [2] target id.
 */
export const SET_TARGET = `
local key, index, managed, creating = KEYS[1], KEYS[4], KEYS[5], KEYS[6]
local id, tid = ARGV[1], ARGV[2]
local old = redis.call('HGET', key, 't')
if old and old ~= tid and redis.call('HGET', index, old) == id then redis.call('HDEL', index, old) end
redis.call('HSET', key, 't', tid, 'm', '1')
redis.call('HDEL', key, 'pc')
redis.call('SREM', creating, id)
redis.call('HSET', index, tid, id)
redis.call('SADD', managed, id)
return 1
`;

/**
 * KEYS of ADOPT_BULK: [1..3] P:u:tid, P:u:managed, P:u:creating, [4..6] the same for groups, then the
 * hash of each identity, in the order of the items.
 */
export function adoptBulkKeys(keys: Keys, items: readonly { kind: IdentityKind; id: string }[]): string[] {
  const perKind = (kind: IdentityKind) => [keys.targetIdIndex(kind), keys.managed(kind), keys.creating(kind)];
  return [...perKind('user'), ...perKind('group'), ...items.map((item) => keys.identity(item.kind, item.id))];
}

/**
 * Bulk adoption by a full sync: for each identity without a target id, records the one its listing
 * matched (an existing mapping, which a reconcile run may have just written, is left alone). A
 * parked identity adopts nothing, nor does anyone adopt an account already managed for another
 * identity (SPEC §6, Ownership: the reconcile run records such a conflict instead).
 * ARGV[1] now (ms), then triples [kind letter (u|g), id, target id], one per identity hash in KEYS.
 * Returns how many were recorded.
 */
export const ADOPT_BULK = `
local now = ARGV[1]
local index = {
  u = {tid = KEYS[1], managed = KEYS[2], creating = KEYS[3]},
  g = {tid = KEYS[4], managed = KEYS[5], creating = KEYS[6]},
}
${BULK_HELPERS}
-- Each kind's items, and the holder of each target id as stored before this call.
local asked = {u = {}, g = {}}
for n = 7, #KEYS do
  local i = 2 + (n - 7) * 3
  local list = asked[ARGV[i]]
  list[#list + 1] = ARGV[i + 2]
end
local before = {u = bulkRead('HMGET', index.u.tid, asked.u), g = bulkRead('HMGET', index.g.tid, asked.g)}
local holders = {u = {}, g = {}}
for k, tids in pairs(asked) do
  for j, tid in ipairs(tids) do
    if holders[k][tid] == nil then holders[k][tid] = before[k][j] end
  end
end
-- In the items' order, as a call each would: an adoption here holds its target id for the rest.
local writes = {u = {ids = {}, pairs = {}}, g = {ids = {}, pairs = {}}}
local adopted = 0
for n = 7, #KEYS do
  local i = 2 + (n - 7) * 3
  local key, k, id, tid = KEYS[n], ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local f = redis.call('HMGET', key, 't', 'pk')
  local holder = holders[k][tid]
  if not f[1] and not f[2] and (not holder or holder == id) then
    redis.call('HSET', key, 't', tid, 'm', '1', 'lr', 'adopted', 'la', now)
    redis.call('HDEL', key, 'pc')
    holders[k][tid] = id
    local w = writes[k]
    w.ids[#w.ids + 1] = id
    w.pairs[#w.pairs + 1] = tid
    w.pairs[#w.pairs + 1] = id
    adopted = adopted + 1
  end
end
for k, w in pairs(writes) do
  bulkWrite('SREM', index[k].creating, w.ids)
  bulkWrite('HSET', index[k].tid, w.pairs)
  bulkWrite('SADD', index[k].managed, w.ids)
end
return adopted
`;

/**
 * Notes a create about to be sent (ARGV[2]: the externalId it carries) or, with '', forgets one:
 * if its answer is lost and the identity is then deleted, deprovisioning still finds it.
 * ARGV[1] id.
 */
export const MARK_CREATING = `
local key, creating = KEYS[1], KEYS[6]
local id, externalId = ARGV[1], ARGV[2]
if externalId == '' then
  redis.call('HDEL', key, 'pc')
  redis.call('SREM', creating, id)
else
  redis.call('HSET', key, 'pc', externalId)
  redis.call('SADD', creating, id)
end
return 1
`;

/**
 * Forgets the target id (deleted out of band, or deleted by us). ARGV[1] id; ARGV[2] 'drop' also
 * removes the identity's record when nothing desired is left, so deleted identities do not accumulate.
 */
export const FORGET_TARGET = `
local key, doc, history, index, managed, creating = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, drop = ARGV[1], ARGV[2]
local old = redis.call('HGET', key, 't')
if old and redis.call('HGET', index, old) == id then redis.call('HDEL', index, old) end
redis.call('HDEL', key, 't', 'm')
redis.call('SREM', managed, id)
if drop == 'drop' and redis.call('EXISTS', doc) == 0 then
  redis.call('DEL', key)
  redis.call('SREM', creating, id)
  redis.call('EXPIRE', history, 604800)
end
return 1
`;

/**
 * KEYS of RECORD_OUTCOME: [1] the identity's hash, [2] its history, [3] P:failures, [4] P:dirty,
 * [5] P:dirty:sync, [6] P:sync:active; and the families it reaches through the active syncs' ids,
 * as ARGV[9..10] (its record) and ARGV[11..12] (its pending set).
 */
export function recordOutcomeKeys(
  keys: Keys,
  kind: IdentityKind,
  id: string,
): { keys: string[]; families: string[] } {
  return {
    keys: [
      keys.identity(kind, id),
      keys.history(kind, id),
      keys.failures(),
      keys.dirty(),
      keys.dirtyForSync(),
      keys.syncActive(),
    ],
    families: [...familyArgs(keys.syncFamily()), ...familyArgs(keys.syncPendingFamily())],
  };
}

/**
 * Records the end of one reconcile run. ARGV[1] identity key ("user:<id>"), [2] started (ms),
 * [3] now (ms), [4] result: an action ('parked' included), 'failed' (permanent) or 'retrying', [5]
 * error JSON or '',
 * [6] requests JSON {METHOD: n}, [7] / [8] the scores of the identity's marks in P:dirty and
 * P:dirty:sync when the run began, before it read the desired state ('' for none), [9..12] the key
 * families above, [13] the sync record's counter of this kind and result ("c:u:created"),
 * [14..] history entries (oldest first).
 * Clears a dirty mark only if its score is still the one the run saw (marks only grow: any change
 * since makes it higher), and reports the run to each active full reconciliation waiting on this
 * identity (one per input's slot: at most a few).
 */
export const RECORD_OUTCOME = `
local key, h, failures = KEYS[1], KEYS[2], KEYS[3]
local ikey, started, now, result, err, requests = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4],
  ARGV[5], ARGV[6]
local seen = {tonumber(ARGV[7]), tonumber(ARGV[8])}
local SYNC = {stem = ARGV[9], suffix = ARGV[10]}
local PENDING = {stem = ARGV[11], suffix = ARGV[12]}
local counter = ARGV[13]
for i = 14, #ARGV do redis.call('LPUSH', h, ARGV[i]) end
redis.call('LTRIM', h, 0, 19)
local exists = redis.call('EXISTS', key) == 1
if exists then redis.call('HSET', key, 'lt', now, 'lr', result) end
if result == 'retrying' then
  if exists and err ~= '' then redis.call('HSET', key, 'le', err) end
  return 0
end
if result == 'failed' then
  if exists then redis.call('HSET', key, 'le', err) end
  redis.call('ZADD', failures, now, ikey)
else
  if exists then
    -- A parked identity is not reconciled: nothing was applied.
    if result ~= 'parked' then redis.call('HSET', key, 'la', now) end
    redis.call('HDEL', key, 'le')
  end
  redis.call('ZREM', failures, ikey)
end
for i, marks in ipairs({KEYS[4], KEYS[5]}) do
  local d = redis.call('ZSCORE', marks, ikey)
  if d and seen[i] and tonumber(d) <= seen[i] then redis.call('ZREM', marks, ikey) end
end
for _, sync in ipairs(redis.call('HVALS', KEYS[6])) do
  local pending = PENDING.stem .. sync .. PENDING.suffix
  local queued = redis.call('ZSCORE', pending, ikey)
  if queued and tonumber(queued) <= started then
    redis.call('ZREM', pending, ikey)
    local record = SYNC.stem .. sync .. SYNC.suffix
    redis.call('HINCRBY', record, counter, 1)
    for method, n in pairs(cjson.decode(requests)) do redis.call('HINCRBY', record, 'r:' .. method, n) end
  end
end
return 1
`;

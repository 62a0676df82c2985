import { EVENT_TIME_SKEW_MS } from '../../domain/event-time.js';
import { CONFLICT_HELPERS } from './conflicts.lua.js';
import { CHECK_OPS } from './desired-state-check.lua.js';
import { OWNERSHIP } from './desired-state-owner.lua.js';
import { INDEX_HELPERS } from './identity-index.lua.js';

/**
 * The one Lua script that changes the desired state: it applies a batch of operations atomically,
 * so a crash never leaves half an update — the identities, their indexes and memberships, their
 * owners and conflicts, the dirty marks (the outbox that guarantees reconcile jobs), the history
 * entries and the seen event ids change together or not at all. Key layout: src/store/keys.ts;
 * stored form: src/domain/canonical.ts; ownership: desired-state-owner.lua.ts.
 *
 * KEYS, as applyBatchKeys (desired-state.keys.ts) builds them:
 *   [1] the marks (P:dirty, or P:dirty:sync for a batch a full sync enqueues itself), [2] P:u:memberof,
 *   [3] P:u:email, [4] P:owners, [5..8] P:conflicts, P:conflicts:ignored, P:conflicts:all,
 *   P:conflicts:kinds, [9..15] P:u:name, P:u:ext, P:u:all, P:u:seq, P:u:pname, P:u:pext,
 *   P:u:own:<owner>, [16..22] the same for groups, [23] the other marks (P:dirty:sync, or P:dirty
 *   for a batch a full sync enqueues itself); then for each op in order its identity's hash,
 *   doc, extra and history keys, and for a group op its member set; then the seen-event key of each
 *   id in events.ids.
 * ARGV[1] now (ms), ARGV[2] the batch as JSON, then the families (stem, suffix) the script reaches
 * keys through: [3..4] group member sets (the groups of a deleted user), [5..8] identity hashes of
 * users and groups, [9..12] their docs (a name's holder), [13..16] their owned sets, [17..18]
 * conflicts.
 *   { owner: 'scim' | 'events' | 'okta' | 'directory:<name>',
 *     events?: {ids: [...], ttl: seconds},   -- event ids to remember; ops of seen events are skipped
 *     ops: [{op, id, event?, evt?, ifv?, entry?, ...}] }
 * op: upsertUser {doc, ix?, mode, extra?} | deleteUser | upsertGroup {doc, ix?, members?, mode, extra?}
 *     | deleteGroup | addMembers {members} | removeMembers {members}
 * `event` is the index of the op's event in events.ids; `evt` (ms) applies the op only when not
 * older than the last event applied to the identity; `ifv` applies it only while the identity's
 * version is still that one (compare-and-set for read-modify-write callers); `extra` (JSON, '' to
 * clear) holds attributes the bridge keeps for its SCIM server but does not manage on the target;
 * `clean` (upserts) says the target is known to match already: no reconcile job is owed.
 * mode 'unique' refuses a userName/displayName held by another identity of the same owner. A refused
 * op refuses the whole batch before anything is written. Returns JSON {results, duplicates, touched}
 * — touched: the identity keys marked dirty, to enqueue — or {conflict: {index, owner}} or
 * {modified: index}, or {invalid: {index, reason}} for an op the script cannot apply
 * (desired-state-check.lua.ts). (cjson encodes an empty array as {}.)
 *
 * Redis does not roll back a script that fails half-way: everything that can fail — decoding the
 * batch and each op's JSON, the types of what is written — is checked before the first write.
 */

export const APPLY_BATCH = `
local now = ARGV[1]
local parsed, batch = pcall(cjson.decode, ARGV[2])
if not parsed or type(batch) ~= 'table' or type(batch.ops) ~= 'table' then
  return cjson.encode({invalid = {index = -1, reason = 'the batch is not decodable JSON'}})
end
local function family(i) return {stem = ARGV[i], suffix = ARGV[i + 1]} end
local MEMBERS = family(3)
local IDENT, DOC, OWNED = {u = family(5), g = family(7)}, {u = family(9), g = family(11)},
  {u = family(13), g = family(15)}
local C = {open = KEYS[5], ignored = KEYS[6], all = KEYS[7], kinds = KEYS[8], family = family(17)}
local ops = batch.ops
local OWNER = batch.owner
local MARKS, MEMBER_OF, EMAILS, OWNERS = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local OTHER_MARKS = KEYS[23]
local IX = {
  u = {name = KEYS[9], ext = KEYS[10], all = KEYS[11], seq = KEYS[12], pname = KEYS[13], pext = KEYS[14],
    own = KEYS[15]},
  g = {name = KEYS[16], ext = KEYS[17], all = KEYS[18], seq = KEYS[19], pname = KEYS[20], pext = KEYS[21],
    own = KEYS[22]},
}

local function letter(op) if op.op == 'upsertUser' or op.op == 'deleteUser' then return 'u' end return 'g' end
-- Each op's own keys (K.i hash, K.d doc, K.x extra, K.h history, K.m member set), in KEYS order.
local at = 24
for _, op in ipairs(ops) do
  if type(op) == 'table' then
    op.K = {i = KEYS[at], d = KEYS[at + 1], x = KEYS[at + 2], h = KEYS[at + 3]}
    if letter(op) == 'g' then
      op.K.m = KEYS[at + 4]
      at = at + 5
    else
      at = at + 4
    end
  end
end
local eventKeys = at
local eventCount = batch.events and #batch.events.ids or 0
local wakeKeys = batch.wake and 1 or 0
if #KEYS ~= eventKeys + eventCount - 1 + wakeKeys then return redis.error_reply('KEYS do not match the batch') end

${INDEX_HELPERS}
${CONFLICT_HELPERS}
${OWNERSHIP}

local function history(op)
  if op.entry and op.entry ~= '' then pushHistory(op.K.h, op.entry) end
end
-- Gives a new identity its place in P:K:all (and its creation time, into the caller's fields);
-- returns its score there.
local function remember(k, op, fields)
  local seq = redis.call('ZSCORE', IX[k].all, op.id)
  if seq then return seq end
  seq = redis.call('INCR', IX[k].seq)
  redis.call('ZADD', IX[k].all, seq, op.id)
  fields[#fields + 1] = 'cr'
  fields[#fields + 1] = now
  return seq
end
local function changed(op)
  redis.call('HSET', op.K.i, 'ts', now)
  redis.call('HINCRBY', op.K.i, 'v', 1)
end
-- Out-of-order events: true when the op's event is older than the identity's last one (events of
-- the same time apply in the order given; redeliveries are caught by their event id).
-- A stored time beyond the clock's skew (kept from before times were bounded) pins nothing.
local function stale(op)
  if not op.evt then return false end
  local ev = tonumber(redis.call('HGET', op.K.i, 'ev'))
  if ev and ev > tonumber(op.evt) and ev <= tonumber(now) + ${EVENT_TIME_SKEW_MS} then return true end
  redis.call('HSET', op.K.i, 'ev', op.evt)
  return false
end
-- Extra attributes are not reconciled (no dirty mark), but they are a change for lastModified.
local function setExtra(op)
  if op.extra == nil then return false end
  local xkey = op.K.x
  if redis.call('GET', xkey) == (op.extra ~= '' and op.extra or false) then return false end
  if op.extra == '' then redis.call('DEL', xkey) else redis.call('SET', xkey, op.extra) end
  return true
end

-- Writes an upsert's doc and indexes (parked: in the parked indexes) and its owner (o: the one
-- recorded, false for none, nil when not read); the hash's fields in one command.
local function store(k, op, cur, oldIx, parked, o)
  if cur then dropEntries(k, op.id, OWNER, entries(k, cur, oldIx)) end
  addEntries(k, op.id, OWNER, op.new, parked)
  redis.call('SET', op.K.d, op.doc)
  local fields = op.ix and {'ts', now, 'ix', op.ix} or {'ts', now}
  if oldIx and not op.ix then redis.call('HDEL', op.K.i, 'ix') end
  setOwner(k, op, remember(k, op, fields), o, fields)
  redis.call('HSET', op.K.i, unpack(fields))
  redis.call('HINCRBY', op.K.i, 'v', 1)
  history(op)
end

-- An upsert of a parked identity (pk: its conflict), or one parked now (fresh): stored, not reconciled.
local function upsertParked(k, op, cur, pk, fresh)
  local oldIx = redis.call('HGET', op.K.i, 'ix')
  local extraChanged = setExtra(op)
  local change = fresh or cur ~= op.doc
  if k == 'g' and op.members then change = setMembers(op.K.m, op.id, op.members) or change end
  if not change then
    if extraChanged then changed(op) end
    touchConflict(pk, nil)
    return 'unchanged'
  end
  store(k, op, cur, oldIx, true)
  redis.call('HSET', op.K.i, 'pk', pk)
  if not fresh then touchConflict(pk, docName(op.doc)) end
  return 'parked'
end

local function upsertIdentity(k, op)
  if op.elsewhere then return claimSameId(k, op, op.elsewhere) end
  if stale(op) then return 'stale' end
  local cur = redis.call('GET', op.K.d)
  local f = redis.call('HMGET', op.K.i, 'pk', 'ix', 'o')
  local pk = cur and f[1]
  if pk then return upsertParked(k, op, cur, pk, false) end
  local conflict, holder = clash(k, op)
  if conflict then return upsertParked(k, op, cur, conflict, true) end
  local oldIx, o = f[2], f[3]
  local extraChanged = setExtra(op)
  local change = cur ~= op.doc or holder ~= op.id
  if k == 'g' and op.members then change = setMembers(op.K.m, op.id, op.members) or change end
  if not change then
    if extraChanged then changed(op) end
    if not o then setOwner(k, op, nil, false) end
    return 'unchanged'
  end
  store(k, op, cur, oldIx, false, o)
  if not op.clean then dirty(MARK[k] .. op.id) end
  if cur then return 'updated' end
  return 'created'
end

-- Whether deleting an identity owes a reconcile run: it has a platform account (t) or a create
-- may have made one (pc), or a run is owed or under way already (a mark; raised, so that a run
-- that read the identity before the delete does not clear it). Otherwise nothing on the platform
-- is the bridge's to deprovision (SPEC §6): no mark, nothing left pending.
local function owesRun(key, t, pc)
  return t or pc or redis.call('ZSCORE', MARKS, key) or redis.call('ZSCORE', OTHER_MARKS, key)
end

local function deleteIdentity(k, op)
  if op.elsewhere then return refused(op) end
  if stale(op) then return 'stale' end
  local cur = redis.call('GET', op.K.d)
  if not cur then return 'absent' end
  local f = redis.call('HMGET', op.K.i, 'ix', 'pk', 'o', 't', 'pc')
  dropEntries(k, op.id, f[3] or OWNER, entries(k, cur, f[1]))
  redis.call('DEL', op.K.d, op.K.x)
  redis.call('HDEL', op.K.i, 'ix', 'cr', 'pk')
  redis.call('ZREM', IX[k].all, op.id)
  if f[3] then redis.call('ZREM', ownedKey(k, f[3]), op.id) end
  if f[2] then withdrawConflict(f[2]) end
  if k == 'u' then
    local prefix = op.id .. '\\n'
    local memberships = redis.call('ZRANGEBYLEX', MEMBER_OF, '[' .. prefix, '(' .. op.id .. '\\011')
    for _, entry in ipairs(memberships) do
      local g = string.sub(entry, #prefix + 1)
      removeMember(memberSet(g), g, op.id)
      dirty(MARK.g .. g)
    end
  else
    for _, m in ipairs(redis.call('SMEMBERS', op.K.m)) do removeMember(op.K.m, op.id, m) end
  end
  changed(op)
  if owesRun(MARK[k] .. op.id, f[4], f[5]) then dirty(MARK[k] .. op.id) end
  history(op)
  return 'deleted'
end

-- Members of a group known or not yet: they converge when it (or they) arrive.
local function changeMembers(op, add)
  if op.elsewhere then return refused(op) end
  if stale(op) then return 'stale' end
  local count = 0
  for _, m in ipairs(op.members) do
    local present = redis.call('SISMEMBER', op.K.m, m) == 1
    if add and not present then
      addMember(op.K.m, op.id, m)
      count = count + 1
    elseif not add and present then
      removeMember(op.K.m, op.id, m)
      count = count + 1
    end
  end
  if count == 0 then return 'unchanged' end
  changed(op)
  if not redis.call('HGET', op.K.i, 'pk') then dirty(MARK.g .. op.id) end
  history(op)
  return 'changed'
end

${CHECK_OPS}

-- 1. Which events were seen already.
local seen = {}
local duplicates = {}
for i = 1, eventCount do
  if redis.call('EXISTS', KEYS[eventKeys + i - 1]) == 1 then
    seen[i - 1] = true
    duplicates[#duplicates + 1] = batch.events.ids[i]
  end
end
local function skipped(op) return op.event ~= nil and seen[op.event] end

-- 2. Owners, uniqueness (among the identities of this input) and versions, before anything is written.
for i, op in ipairs(ops) do
  if not skipped(op) then
    local k = letter(op)
    op.elsewhere = ownedElsewhere(op)
    if not op.elsewhere and op.ifv and (redis.call('HGET', op.K.i, 'v') or '0') ~= op.ifv then
      return cjson.encode({modified = i - 1})
    end
    if not op.elsewhere and (op.op == 'upsertUser' or op.op == 'upsertGroup') and op.mode == 'unique' then
      local holder = redis.call('HGET', IX[k].name, op.new.n)
      local o = holder and holder ~= op.id and redis.call('HGET', identityKey(k, holder), 'o')
      if holder and holder ~= op.id and (not o or o == OWNER) then
        return cjson.encode({conflict = {index = i - 1, owner = holder}})
      end
      local parked = redis.call('HGET', IX[k].pname, OWNER .. '\\n' .. op.new.n)
      if parked and parked ~= op.id then return cjson.encode({conflict = {index = i - 1, owner = parked}}) end
    end
  end
end

-- 3. Apply.
local results = {}
for i, op in ipairs(ops) do
  local r = 'skipped'
  if not skipped(op) then
    if op.op == 'upsertUser' then r = upsertIdentity('u', op)
    elseif op.op == 'upsertGroup' then r = upsertIdentity('g', op)
    elseif op.op == 'deleteUser' then r = deleteIdentity('u', op)
    elseif op.op == 'deleteGroup' then r = deleteIdentity('g', op)
    elseif op.op == 'addMembers' then r = changeMembers(op, true)
    else r = changeMembers(op, false) end
  end
  results[i] = r
end
for i = 1, eventCount do
  if not seen[i - 1] then redis.call('SET', KEYS[eventKeys + i - 1], now, 'EX', batch.events.ttl) end
end
-- The workers' feeder blocks on the wake list (the last key): one token says "new marks", at once.
if batch.wake and #touched > 0 then
  redis.call('LPUSH', KEYS[#KEYS], '1')
  redis.call('LTRIM', KEYS[#KEYS], 0, 0)
end
return cjson.encode({results = results, duplicates = duplicates, touched = touched})
`;

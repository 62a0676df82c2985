import { EVENT_TIME_SKEW_MS } from '../../domain/event-time.js';
import { CHECK_OPS } from './desired-state-check.lua.js';

/**
 * The one Lua script that changes the desired state: it applies a batch of operations atomically,
 * so a crash never leaves half an update — the identities, their indexes and memberships, the dirty
 * marks (the outbox that guarantees reconcile jobs), the history entries and the seen event ids
 * change together or not at all. Key layout: src/store/keys.ts; stored form: src/domain/canonical.ts.
 *
 * KEYS, as applyBatchKeys (desired-state.keys.ts) builds them:
 *   [1] the marks (P:dirty, or P:dirty:sync for a batch a full sync enqueues itself), [2] P:u:memberof,
 *   [3] P:u:email, [4..7] P:u:name, P:u:ext, P:u:all, P:u:seq, [8..11] the same for groups;
 *   then for each op in order its identity's hash, doc, extra and history keys, and for a group op
 *   its member set; then the seen-event key of each id in events.ids.
 * ARGV[1] now (ms), ARGV[2] the batch as JSON, ARGV[3..4] the family of group member sets (stem,
 * suffix), for the groups of a deleted user, found in P:u:memberof:
 *   { events?: {ids: [...], ttl: seconds},   -- event ids to remember; ops of seen events are skipped
 *     ops: [{op, id, event?, evt?, ifv?, entry?, ...}] }
 * op: upsertUser {doc, ix?, mode, extra?} | deleteUser | upsertGroup {doc, ix?, members?, mode, extra?}
 *     | deleteGroup | addMembers {members} | removeMembers {members}
 * `event` is the index of the op's event in events.ids; `evt` (ms) applies the op only when not
 * older than the last event applied to the identity; `ifv` applies it only while the identity's
 * version is still that one (compare-and-set for read-modify-write callers); `extra` (JSON, '' to
 * clear) holds attributes the bridge keeps for its SCIM server but does not manage on the target;
 * `clean` (upserts) says the target is known to match already: no reconcile job is owed.
 * mode 'unique' refuses a userName/displayName held by another identity. A refused op refuses the
 * whole batch before anything is written. Returns JSON {results, duplicates, touched} — touched:
 * the identity keys marked dirty, to enqueue — or {conflict: {index, owner}} or {modified: index},
 * or {invalid: {index, reason}} for an op the script cannot apply (desired-state-check.lua.ts).
 * (cjson encodes an empty array as {}.)
 *
 * Redis does not roll back a script that fails half-way: everything that can fail — decoding the
 * batch and each op's JSON, the types of what is written — is checked before the first write.
 */

const HISTORY = 20;

export const APPLY_BATCH = `
local now = ARGV[1]
local parsed, batch = pcall(cjson.decode, ARGV[2])
if not parsed or type(batch) ~= 'table' or type(batch.ops) ~= 'table' then
  return cjson.encode({invalid = {index = -1, reason = 'the batch is not decodable JSON'}})
end
local MEMBERS = {stem = ARGV[3], suffix = ARGV[4]}
local ops = batch.ops
local marks, memberOf, emails = KEYS[1], KEYS[2], KEYS[3]
local index = {
  u = {name = KEYS[4], ext = KEYS[5], all = KEYS[6], seq = KEYS[7]},
  g = {name = KEYS[8], ext = KEYS[9], all = KEYS[10], seq = KEYS[11]},
}
-- The identity keys of the dirty marks (jobs), not Redis keys.
local MARK = {u = 'user:', g = 'group:'}

local function letter(op) if op.op == 'upsertUser' or op.op == 'deleteUser' then return 'u' end return 'g' end
-- Each op's own keys (K.i hash, K.d doc, K.x extra, K.h history, K.m member set), in KEYS order.
local at = 12
for _, op in ipairs(ops) do
  op.K = {i = KEYS[at], d = KEYS[at + 1], x = KEYS[at + 2], h = KEYS[at + 3]}
  if letter(op) == 'g' then
    op.K.m = KEYS[at + 4]
    at = at + 5
  else
    at = at + 4
  end
end
local eventKeys = at
local eventCount = batch.events and #batch.events.ids or 0
if #KEYS ~= eventKeys + eventCount - 1 then return redis.error_reply('KEYS do not match the batch') end

local function nonNull(v) if v == cjson.null then return nil end return v end
local function memberSet(g) return MEMBERS.stem .. g .. MEMBERS.suffix end

-- The index entries of a stored doc: from its ix field when there is one, else derived (ASCII).
local function entries(k, doc, ix)
  if ix then return cjson.decode(ix) end
  local d = cjson.decode(doc)
  local n = string.lower(d[1])
  local out = {n = n, x = nonNull(d[2]), e = {}}
  if k == 'u' and nonNull(d[5]) then
    for _, m in ipairs(d[5]) do
      local e = string.lower(m[1])
      if e ~= n then out.e[#out.e + 1] = e end
    end
  end
  return out
end

local function history(op)
  if op.entry and op.entry ~= '' then
    redis.call('LPUSH', op.K.h, op.entry)
    redis.call('LTRIM', op.K.h, 0, ${HISTORY - 1})
  end
end
local touched, touchedSet = {}, {}
-- A mark's score only ever grows, by at least 1 ms per batch that changes the identity: a run
-- clears the mark only if it is still the score the run saw before reading the desired state, so
-- two changes within one millisecond (or a writer whose clock is behind) must not leave it as it was.
local function dirty(key)
  if touchedSet[key] then return end
  local score = tonumber(now)
  local current = redis.call('ZSCORE', marks, key)
  if current and tonumber(current) >= score then score = tonumber(current) + 1 end
  redis.call('ZADD', marks, score, key)
  touchedSet[key] = true
  touched[#touched + 1] = key
end
local function unindex(hashKey, field, id)
  if field and redis.call('HGET', hashKey, field) == id then redis.call('HDEL', hashKey, field) end
end
local function setIndexes(k, id, new, old)
  local names, exts = index[k].name, index[k].ext
  if old then
    if old.n ~= new.n then unindex(names, old.n, id) end
    if old.x ~= new.x then unindex(exts, old.x, id) end
    for _, e in ipairs(old.e or {}) do redis.call('ZREM', emails, e .. '\\n' .. id) end
  end
  redis.call('HSET', names, new.n, id)
  if new.x then redis.call('HSET', exts, new.x, id) end
  for _, e in ipairs(new.e or {}) do redis.call('ZADD', emails, 0, e .. '\\n' .. id) end
end
local function remember(k, op)
  if not redis.call('ZSCORE', index[k].all, op.id) then
    redis.call('ZADD', index[k].all, redis.call('INCR', index[k].seq), op.id)
    redis.call('HSET', op.K.i, 'cr', now)
  end
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
local function addMember(memKey, g, u)
  redis.call('SADD', memKey, u)
  redis.call('ZADD', memberOf, 0, u .. '\\n' .. g)
end
local function removeMember(memKey, g, u)
  redis.call('SREM', memKey, u)
  redis.call('ZREM', memberOf, u .. '\\n' .. g)
end

local function setMembers(op, members)
  local want = {}
  local moved = false
  for _, m in ipairs(members) do want[m] = true end
  for _, m in ipairs(redis.call('SMEMBERS', op.K.m)) do
    if want[m] then want[m] = nil else
      removeMember(op.K.m, op.id, m)
      moved = true
    end
  end
  for m, _ in pairs(want) do
    addMember(op.K.m, op.id, m)
    moved = true
  end
  return moved
end

local function upsertIdentity(k, op)
  if stale(op) then return 'stale' end
  local cur = redis.call('GET', op.K.d)
  local oldIx = redis.call('HGET', op.K.i, 'ix')
  local new = op.new
  local owner = redis.call('HGET', index[k].name, new.n)
  local extraChanged = setExtra(op)
  local change = cur ~= op.doc or owner ~= op.id
  if k == 'g' and op.members then change = setMembers(op, op.members) or change end
  if not change then
    if extraChanged then changed(op) end
    return 'unchanged'
  end
  setIndexes(k, op.id, new, cur and entries(k, cur, oldIx) or nil)
  redis.call('SET', op.K.d, op.doc)
  if op.ix then redis.call('HSET', op.K.i, 'ix', op.ix) elseif oldIx then redis.call('HDEL', op.K.i, 'ix') end
  remember(k, op)
  changed(op)
  if not op.clean then dirty(MARK[k] .. op.id) end
  history(op)
  if cur then return 'updated' end
  return 'created'
end

local function deleteIdentity(k, op)
  if stale(op) then return 'stale' end
  local cur = redis.call('GET', op.K.d)
  if not cur then return 'absent' end
  local old = entries(k, cur, redis.call('HGET', op.K.i, 'ix'))
  unindex(index[k].name, old.n, op.id)
  unindex(index[k].ext, old.x, op.id)
  for _, e in ipairs(old.e or {}) do redis.call('ZREM', emails, e .. '\\n' .. op.id) end
  redis.call('DEL', op.K.d, op.K.x)
  redis.call('HDEL', op.K.i, 'ix', 'cr')
  redis.call('ZREM', index[k].all, op.id)
  if k == 'u' then
    local prefix = op.id .. '\\n'
    local memberships = redis.call('ZRANGEBYLEX', memberOf, '[' .. prefix, '(' .. op.id .. '\\011')
    for _, entry in ipairs(memberships) do
      local g = string.sub(entry, #prefix + 1)
      removeMember(memberSet(g), g, op.id)
      dirty(MARK.g .. g)
    end
  else
    for _, m in ipairs(redis.call('SMEMBERS', op.K.m)) do removeMember(op.K.m, op.id, m) end
  end
  changed(op)
  dirty(MARK[k] .. op.id)
  history(op)
  return 'deleted'
end

-- Members of a group known or not yet: they converge when it (or they) arrive.
local function changeMembers(op, add)
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
  dirty(MARK.g .. op.id)
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

-- 2. Uniqueness and versions, before anything is written.
for i, op in ipairs(ops) do
  if not skipped(op) then
    local k = letter(op)
    if op.ifv and (redis.call('HGET', op.K.i, 'v') or '0') ~= op.ifv then
      return cjson.encode({modified = i - 1})
    end
    if (op.op == 'upsertUser' or op.op == 'upsertGroup') and op.mode == 'unique' then
      local owner = redis.call('HGET', index[k].name, op.new.n)
      if owner and owner ~= op.id then return cjson.encode({conflict = {index = i - 1, owner = owner}}) end
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
return cjson.encode({results = results, duplicates = duplicates, touched = touched})
`;

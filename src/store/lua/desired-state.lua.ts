/**
 * The one Lua script that changes the desired state: it applies a batch of operations atomically,
 * so a crash never leaves half an update — the identities, their indexes and memberships, the dirty
 * marks (the outbox that guarantees reconcile jobs), the history entries and the seen event ids
 * change together or not at all. Key layout: src/store/keys.ts; stored form: src/domain/canonical.ts.
 * All keys share the prefix's hash tag, so building them here is safe on Cluster.
 *
 * ARGV[1] prefix, ARGV[2] now (ms), ARGV[3] the batch as JSON:
 *   { events?: {ids: [...], ttl: seconds},   -- event ids to remember; ops of seen events are skipped
 *     forSync?: true,                        -- marks go to P:dirty:sync (a full sync enqueues them)
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
 * the identity keys marked dirty, to enqueue — or {conflict: {index, owner}} or {modified: index}.
 * (cjson encodes an empty array as {}.)
 */

const HISTORY = 20;

export const APPLY_BATCH = `
local P, now = ARGV[1], ARGV[2]
local batch = cjson.decode(ARGV[3])
local ops = batch.ops

local function ikey(k, id) return P .. ':' .. k .. ':i:' .. id end
local function dkey(k, id) return P .. ':' .. k .. ':d:' .. id end
local function nonNull(v) if v == cjson.null then return nil end return v end

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

local function history(k, id, entry)
  if entry and entry ~= '' then
    local h = P .. ':' .. k .. ':h:' .. id
    redis.call('LPUSH', h, entry)
    redis.call('LTRIM', h, 0, ${HISTORY - 1})
  end
end
local touched, touchedSet = {}, {}
local marks = batch.forSync and (P .. ':dirty:sync') or (P .. ':dirty')
-- A mark's score only ever grows, by at least 1 ms per batch that changes the identity: a run
-- clears the mark only if it is still the score the run saw before reading the desired state, so
-- two changes within one millisecond (or a writer whose clock is behind) must not leave it as it was.
local function dirty(kind, id)
  local key = kind .. ':' .. id
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
  local names, exts = P .. ':' .. k .. ':name', P .. ':' .. k .. ':ext'
  if old then
    if old.n ~= new.n then unindex(names, old.n, id) end
    if old.x ~= new.x then unindex(exts, old.x, id) end
    for _, e in ipairs(old.e or {}) do redis.call('ZREM', P .. ':u:email', e .. '\\n' .. id) end
  end
  redis.call('HSET', names, new.n, id)
  if new.x then redis.call('HSET', exts, new.x, id) end
  for _, e in ipairs(new.e or {}) do redis.call('ZADD', P .. ':u:email', 0, e .. '\\n' .. id) end
end
local function remember(k, id)
  local all = P .. ':' .. k .. ':all'
  if not redis.call('ZSCORE', all, id) then
    redis.call('ZADD', all, redis.call('INCR', P .. ':' .. k .. ':seq'), id)
    redis.call('HSET', ikey(k, id), 'cr', now)
  end
end
local function changed(k, id)
  redis.call('HSET', ikey(k, id), 'ts', now)
  redis.call('HINCRBY', ikey(k, id), 'v', 1)
end
-- Out-of-order events: true when the op's event is older than the identity's last one (events of
-- the same time apply in the order given; redeliveries are caught by their event id).
local function stale(key, op)
  if not op.evt then return false end
  local ev = redis.call('HGET', key, 'ev')
  if ev and tonumber(ev) > tonumber(op.evt) then return true end
  redis.call('HSET', key, 'ev', op.evt)
  return false
end
-- Extra attributes are not reconciled (no dirty mark), but they are a change for lastModified.
local function setExtra(k, op)
  if op.extra == nil then return false end
  local xkey = P .. ':' .. k .. ':x:' .. op.id
  if redis.call('GET', xkey) == (op.extra ~= '' and op.extra or false) then return false end
  if op.extra == '' then redis.call('DEL', xkey) else redis.call('SET', xkey, op.extra) end
  return true
end
local function addMember(g, u)
  redis.call('SADD', P .. ':g:mem:' .. g, u)
  redis.call('ZADD', P .. ':u:memberof', 0, u .. '\\n' .. g)
end
local function removeMember(g, u)
  redis.call('SREM', P .. ':g:mem:' .. g, u)
  redis.call('ZREM', P .. ':u:memberof', u .. '\\n' .. g)
end

local function setMembers(id, members)
  local want = {}
  local moved = false
  for _, m in ipairs(members) do want[m] = true end
  for _, m in ipairs(redis.call('SMEMBERS', P .. ':g:mem:' .. id)) do
    if want[m] then want[m] = nil else
      removeMember(id, m)
      moved = true
    end
  end
  for m, _ in pairs(want) do
    addMember(id, m)
    moved = true
  end
  return moved
end

local function upsertIdentity(k, kind, op)
  local key = ikey(k, op.id)
  if stale(key, op) then return 'stale' end
  local cur = redis.call('GET', dkey(k, op.id))
  local oldIx = redis.call('HGET', key, 'ix')
  local new = entries(k, op.doc, op.ix)
  local owner = redis.call('HGET', P .. ':' .. k .. ':name', new.n)
  local extraChanged = setExtra(k, op)
  local change = cur ~= op.doc or owner ~= op.id
  if k == 'g' and op.members then change = setMembers(op.id, op.members) or change end
  if not change then
    if extraChanged then changed(k, op.id) end
    return 'unchanged'
  end
  setIndexes(k, op.id, new, cur and entries(k, cur, oldIx) or nil)
  redis.call('SET', dkey(k, op.id), op.doc)
  if op.ix then redis.call('HSET', key, 'ix', op.ix) elseif oldIx then redis.call('HDEL', key, 'ix') end
  remember(k, op.id)
  changed(k, op.id)
  if not op.clean then dirty(kind, op.id) end
  history(k, op.id, op.entry)
  if cur then return 'updated' end
  return 'created'
end

local function deleteIdentity(k, kind, op)
  local key = ikey(k, op.id)
  if stale(key, op) then return 'stale' end
  local cur = redis.call('GET', dkey(k, op.id))
  if not cur then return 'absent' end
  local old = entries(k, cur, redis.call('HGET', key, 'ix'))
  unindex(P .. ':' .. k .. ':name', old.n, op.id)
  unindex(P .. ':' .. k .. ':ext', old.x, op.id)
  for _, e in ipairs(old.e or {}) do redis.call('ZREM', P .. ':u:email', e .. '\\n' .. op.id) end
  redis.call('DEL', dkey(k, op.id), P .. ':' .. k .. ':x:' .. op.id)
  redis.call('HDEL', key, 'ix', 'cr')
  redis.call('ZREM', P .. ':' .. k .. ':all', op.id)
  if k == 'u' then
    local prefix = op.id .. '\\n'
    local memberships = redis.call('ZRANGEBYLEX', P .. ':u:memberof', '[' .. prefix, '(' .. op.id .. '\\011')
    for _, entry in ipairs(memberships) do
      local g = string.sub(entry, #prefix + 1)
      removeMember(g, op.id)
      dirty('group', g)
    end
  else
    for _, m in ipairs(redis.call('SMEMBERS', P .. ':g:mem:' .. op.id)) do removeMember(op.id, m) end
  end
  changed(k, op.id)
  dirty(kind, op.id)
  history(k, op.id, op.entry)
  return 'deleted'
end

-- Members of a group known or not yet: they converge when it (or they) arrive.
local function changeMembers(op, add)
  local key = ikey('g', op.id)
  if stale(key, op) then return 'stale' end
  local memKey = P .. ':g:mem:' .. op.id
  local count = 0
  for _, m in ipairs(op.members) do
    local present = redis.call('SISMEMBER', memKey, m) == 1
    if add and not present then
      addMember(op.id, m)
      count = count + 1
    elseif not add and present then
      removeMember(op.id, m)
      count = count + 1
    end
  end
  if count == 0 then return 'unchanged' end
  changed('g', op.id)
  dirty('group', op.id)
  history('g', op.id, op.entry)
  return 'changed'
end

-- 1. Which events were seen already.
local seen = {}
local duplicates = {}
if batch.events then
  for i, eventId in ipairs(batch.events.ids) do
    if redis.call('EXISTS', P .. ':events:' .. eventId) == 1 then
      seen[i - 1] = true
      duplicates[#duplicates + 1] = eventId
    end
  end
end
local function skipped(op) return op.event ~= nil and seen[op.event] end
local function letter(op) if op.op == 'upsertUser' or op.op == 'deleteUser' then return 'u' end return 'g' end

-- 2. Uniqueness and versions, before anything is written.
for i, op in ipairs(ops) do
  if not skipped(op) then
    local k = letter(op)
    if op.ifv and (redis.call('HGET', ikey(k, op.id), 'v') or '0') ~= op.ifv then
      return cjson.encode({modified = i - 1})
    end
    if (op.op == 'upsertUser' or op.op == 'upsertGroup') and op.mode == 'unique' then
      local owner = redis.call('HGET', P .. ':' .. k .. ':name', entries(k, op.doc, op.ix).n)
      if owner and owner ~= op.id then return cjson.encode({conflict = {index = i - 1, owner = owner}}) end
    end
  end
end

-- 3. Apply.
local results = {}
for i, op in ipairs(ops) do
  local r = 'skipped'
  if not skipped(op) then
    if op.op == 'upsertUser' then r = upsertIdentity('u', 'user', op)
    elseif op.op == 'upsertGroup' then r = upsertIdentity('g', 'group', op)
    elseif op.op == 'deleteUser' then r = deleteIdentity('u', 'user', op)
    elseif op.op == 'deleteGroup' then r = deleteIdentity('g', 'group', op)
    elseif op.op == 'addMembers' then r = changeMembers(op, true)
    elseif op.op == 'removeMembers' then r = changeMembers(op, false)
    else return redis.error_reply('unknown op ' .. tostring(op.op)) end
  end
  results[i] = r
end
if batch.events then
  for i, eventId in ipairs(batch.events.ids) do
    if not seen[i - 1] then redis.call('SET', P .. ':events:' .. eventId, now, 'EX', batch.events.ttl) end
  end
end
return cjson.encode({results = results, duplicates = duplicates, touched = touched})
`;

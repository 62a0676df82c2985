/**
 * Lua shared by the scripts that change an identity's indexes (the batch, desired-state.lua.ts; the
 * resolution of a conflict, conflict-resolve.lua.ts; reconcile-time parking, conflicts.lua.ts).
 * Key layout: src/store/keys.ts; the stored doc and its index entries: src/domain/canonical.ts.
 *
 * The including script defines, before this chunk:
 *   now      the time (ms, a string)
 *   IX       per kind letter ('u', 'g') the keys {name, ext, pname, pext} (and the others it uses)
 *   EMAILS   P:u:email
 *   MARKS    the dirty marks it writes (P:dirty or P:dirty:sync)
 *   MEMBER_OF, MEMBERS  P:u:memberof and the family of group member sets {stem, suffix}
 *
 * A parked identity's userName / displayName and externalId live in the parked indexes, under its
 * owner ("<owner>\n<value>"), so that the identity holding them in P:K:name / P:K:ext keeps them and
 * its own input still finds it (SCIM filters, uniqueness among its identities).
 */
export const INDEX_HELPERS = `
local function nonNull(v) if v == cjson.null then return nil end return v end
local KIND = {u = 'user', g = 'group'}
local MARK = {u = 'user:', g = 'group:'}

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

-- The userName / displayName of a stored doc, or nil.
local function docName(doc)
  if not doc then return nil end
  local ok, d = pcall(cjson.decode, doc)
  if ok and type(d) == 'table' and type(d[1]) == 'string' then return d[1] end
  return nil
end

local function unindex(hashKey, field, id)
  if field and redis.call('HGET', hashKey, field) == id then redis.call('HDEL', hashKey, field) end
end

-- Takes an identity's entries out of every index: the holders' and, under its owner, the parked ones.
local function dropEntries(k, id, owner, old)
  unindex(IX[k].name, old.n, id)
  unindex(IX[k].ext, old.x, id)
  if owner then
    unindex(IX[k].pname, owner .. '\\n' .. old.n, id)
    if old.x then unindex(IX[k].pext, owner .. '\\n' .. old.x, id) end
  end
  for _, e in ipairs(old.e or {}) do redis.call('ZREM', EMAILS, e .. '\\n' .. id) end
end

-- Puts them in: the holders' indexes, or the parked ones under its owner.
local function addEntries(k, id, owner, new, parked)
  if parked then
    redis.call('HSET', IX[k].pname, owner .. '\\n' .. new.n, id)
    if new.x then redis.call('HSET', IX[k].pext, owner .. '\\n' .. new.x, id) end
  else
    redis.call('HSET', IX[k].name, new.n, id)
    if new.x then redis.call('HSET', IX[k].ext, new.x, id) end
  end
  for _, e in ipairs(new.e or {}) do redis.call('ZADD', EMAILS, 0, e .. '\\n' .. id) end
end

local touched, touchedSet = {}, {}
-- A mark's score only ever grows, by at least 1 ms per batch that changes the identity: a run
-- clears the mark only if it is still the score the run saw before reading the desired state, so
-- two changes within one millisecond (or a writer whose clock is behind) must not leave it as it was.
local function dirty(key)
  if touchedSet[key] then return end
  local score = tonumber(now)
  local current = redis.call('ZSCORE', MARKS, key)
  if current and tonumber(current) >= score then score = tonumber(current) + 1 end
  redis.call('ZADD', MARKS, score, key)
  touchedSet[key] = true
  touched[#touched + 1] = key
end

local function memberSet(g) return MEMBERS.stem .. g .. MEMBERS.suffix end
local function addMember(memKey, g, u)
  redis.call('SADD', memKey, u)
  redis.call('ZADD', MEMBER_OF, 0, u .. '\\n' .. g)
end
local function removeMember(memKey, g, u)
  redis.call('SREM', memKey, u)
  redis.call('ZREM', MEMBER_OF, u .. '\\n' .. g)
end
-- Runs command on key with the list as its arguments, 1,000 at a time (Lua's unpack stops near
-- 8,000; an even count keeps ZADD's score-member pairs whole).
local function inThousands(command, key, list)
  for from = 1, #list, 1000 do
    redis.call(command, key, unpack(list, from, math.min(from + 999, #list)))
  end
end
-- Makes a group's member set equal to members, a few commands in all; true when that changed it.
local function setMembers(memKey, g, members)
  local want = {}
  for _, m in ipairs(members) do want[m] = true end
  local gone, goneOf = {}, {}
  for _, m in ipairs(redis.call('SMEMBERS', memKey)) do
    if want[m] then want[m] = nil else
      gone[#gone + 1] = m
      goneOf[#goneOf + 1] = m .. '\\n' .. g
    end
  end
  local added, addedOf = {}, {}
  for m, _ in pairs(want) do
    added[#added + 1] = m
    addedOf[#addedOf + 1] = 0
    addedOf[#addedOf + 1] = m .. '\\n' .. g
  end
  inThousands('SREM', memKey, gone)
  inThousands('ZREM', MEMBER_OF, goneOf)
  inThousands('SADD', memKey, added)
  inThousands('ZADD', MEMBER_OF, addedOf)
  return #gone > 0 or #added > 0
end

local function pushHistory(historyKey, entry)
  redis.call('LPUSH', historyKey, entry)
  redis.call('LTRIM', historyKey, 0, 19)
end
`;

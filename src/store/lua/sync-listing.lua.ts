import { BULK_HELPERS } from './bulk.lua.js';
import { DIGEST_PREFIX } from './sync-clean.lua.js';

/**
 * Lua scripts of a full sync's index of the platform's listing (src/store/sync-listing.store.ts;
 * key layout: src/store/keys.ts, P:sync:<id>:ls:…). A resource's entry in ls:K:r is one flag
 * character and its compact form (domain/observed-form.ts): `u` listed, `m` listed and recorded as
 * a managed identity's target, `o` the target of another input's identity (SPEC §6, Ownership: a
 * match of the sync never takes it); `u` and `m` upper-cased once a match of the plan claimed it.
 */

/**
 * Indexes one page. KEYS [1] ls:K:r, [2] ls:K:x, [3] ls:K:n, [4] P:K:tid, [5] P:K:managed, [6]
 * ls:u:clean. ARGV [1] the owner the sync writes as ('' none: every input's), [2..3] the family of
 * identity hashes of the kind, [4..5] of their docs, [6] the kind ('u' or 'g': users are found clean
 * here, groups once the plan's users are planned, sync-clean.lua.ts), [7] the claim ('1': the plan
 * walks every stored identity and stages none, so a clean user's account is claimed here, as its
 * match in the plan), then per resource: target id, externalId ('' none), lower-cased name,
 * compact form. A managed user whose recorded owner is the sync's (one stored before owners existed
 * is planned), or of any input when the sync writes as none, whose stored desired state and listed
 * form are those its hash's dg recorded (MARK_CLEAN: with the version of the comparison rules,
 * domain/user-diff.ts), not parked and with no create pending, is clean: it goes to ls:u:clean (its
 * id → the listed target id), and the plan counts it unchanged without reading it (CLEAN_USERS) —
 * unless its account is listed twice (a page shifted under the listing): then it is planned, and an
 * account an earlier page claimed for it is given back. One command covers the page where it can
 * (bulk.lua.ts). Returns {resources new to the index, of them the managed identities' targets (any
 * input's), the accounts given back: not indexed by externalId and name while claimed, they are to
 * be indexed so (SyncListing.reindex)}.
 */
export const INDEX_PAGE = `
local listed, byExternalId, byName, targetIds, managed, clean = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local scope, stem, suffix, docStem, docSuffix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local users, claim = ARGV[6] == 'u', ARGV[7] == '1'
${BULK_HELPERS}
local ids, exts, names, packs = {}, {}, {}, {}
for i = 8, #ARGV, 4 do
  local at = #ids + 1
  ids[at], exts[at], names[at], packs[at] = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
end
local holders = bulkRead('HMGET', targetIds, ids)
local known = {}
for i = 1, #ids do if holders[i] then known[#known + 1] = holders[i] end end
local isManaged = bulkRead('SMISMEMBER', managed, known)
-- Each resource's flag; a managed user that may be clean waits for its stored desired state.
local flags, marks, maybe, docKeys = {}, {}, {}, {}
local k = 0
for i = 1, #ids do
  local holder = holders[i]
  flags[i] = 'u'
  if holder then
    k = k + 1
    if isManaged[k] == 1 then
      flags[i] = 'm'
      local h = redis.call('HMGET', stem .. holder .. suffix, 'o', 'dg', 't', 'pk', 'pc')
      if scope ~= '' and h[1] and h[1] ~= scope then
        flags[i] = 'o'
      elseif users and h[2] and h[3] == ids[i] and not h[4] and not h[5] and (scope == '' or h[1]) then
        maybe[#maybe + 1] = i
        marks[i] = h[2]
        docKeys[#docKeys + 1] = docStem .. holder .. docSuffix
      end
    end
  end
end
local docs = bulkGet(docKeys)
local isClean = {}
for j, i in ipairs(maybe) do
  local doc = docs[j]
  isClean[i] = doc and marks[i] == redis.sha1hex('${DIGEST_PREFIX.user}\\n' .. doc .. '\\n' .. packs[i])
end
-- An id listed before (on an earlier page, or earlier on this one) is not new, and its holder is
-- never clean: the last word on a holder decides whether it is in ls:u:clean.
local before = bulkRead('HMGET', listed, ids)
local seen, cleanState, cleanTarget = {}, {}, {}
local added, addedManaged = 0, 0
for i = 1, #ids do
  local id, holder = ids[i], holders[i]
  if isClean[i] then
    cleanState[holder] = true
    cleanTarget[holder] = id
  end
  if not before[i] and not seen[id] then
    added = added + 1
    if flags[i] ~= 'u' then addedManaged = addedManaged + 1 end
  elseif holder then
    cleanState[holder] = false
  end
  seen[id] = true
end
-- With claim, a clean user's account is written claimed (M) as its match: CLEAN_USERS then only
-- counts it (or gives it back, should its desired state be staged after all). No other identity
-- can match it, so it is not indexed by externalId and name (a claim given back is indexed then).
local entries, byX, byN = {}, {}, {}
for i = 1, #ids do
  local flag = flags[i]
  if claim and isClean[i] and cleanState[holders[i]] then flag = 'M' end
  entries[#entries + 1] = ids[i]
  entries[#entries + 1] = flag .. packs[i]
  if flag ~= 'M' then
    if exts[i] ~= '' then
      byX[#byX + 1] = exts[i]
      byX[#byX + 1] = ids[i]
    end
    byN[#byN + 1] = names[i]
    byN[#byN + 1] = ids[i]
  end
end
local cleanAdd, cleanDrop, given = {}, {}, {}
for holder, state in pairs(cleanState) do
  if state then
    cleanAdd[#cleanAdd + 1] = holder
    cleanAdd[#cleanAdd + 1] = cleanTarget[holder]
  else
    cleanDrop[#cleanDrop + 1] = holder
  end
end
if claim and #cleanDrop > 0 then
  -- A user no longer clean gives back the account an earlier page claimed for it.
  local was = {}
  for _, t in ipairs(bulkRead('HMGET', clean, cleanDrop)) do if t then was[#was + 1] = t end end
  local back = {}
  for j, entry in ipairs(bulkRead('HMGET', listed, was)) do
    if entry and string.sub(entry, 1, 1) == 'M' then
      back[#back + 1] = was[j]
      back[#back + 1] = 'm' .. string.sub(entry, 2)
      given[#given + 1] = was[j]
    end
  end
  bulkWrite('HSET', listed, back)
end
bulkWrite('HSET', clean, cleanAdd)
bulkWrite('HDEL', clean, cleanDrop)
bulkWrite('HSET', listed, entries)
bulkWrite('HSET', byExternalId, byX)
bulkWrite('HSET', byName, byN)
return {added, addedManaged, given}
`;

/**
 * The candidates of identities in matching order (SPEC §6): the recorded target id, then by
 * externalId, then by name. When the resource of the recorded target id is listed and unclaimed it
 * is the match (the first candidate no earlier match took): it is claimed here and given alone.
 * KEYS [1] ls:K:r, [2] ls:K:x, [3] ls:K:n. ARGV per identity: recorded target id ('' none),
 * externalId on the target, lower-cased name. Returns first the number of resources claimed here
 * that were no managed identity's target, then per identity three pairs (target id, entry): '' where
 * nothing is listed, '=' for the entry of a candidate already given, and for a match claimed here
 * the pair (target id, '!' + entry) followed by two empty pairs.
 */
export const CANDIDATES = `
local listed, byExternalId, byName = KEYS[1], KEYS[2], KEYS[3]
local out = {0}
local seen = {}
local function add(id)
  if not id or id == '' then
    out[#out + 1] = ''
    out[#out + 1] = ''
  elseif seen[id] then
    out[#out + 1] = id
    out[#out + 1] = '='
  else
    seen[id] = true
    out[#out + 1] = id
    out[#out + 1] = redis.call('HGET', listed, id) or ''
  end
end
local function claimed(id)
  if id == '' then return false end
  local entry = redis.call('HGET', listed, id)
  if not entry then return false end
  local flag = string.sub(entry, 1, 1)
  if flag ~= 'u' and flag ~= 'm' then return false end
  redis.call('HSET', listed, id, string.upper(flag) .. string.sub(entry, 2))
  if flag == 'u' then out[1] = out[1] + 1 end
  for _, v in ipairs({id, '!' .. entry, '', '', '', ''}) do out[#out + 1] = v end
  return true
end
for i = 1, #ARGV, 3 do
  if not claimed(ARGV[i]) then
    seen = {}
    add(ARGV[i])
    add(redis.call('HGET', byExternalId, ARGV[i + 1]))
    add(redis.call('HGET', byName, ARGV[i + 2]))
  end
end
return out
`;

/**
 * Marks resources claimed by the plan's matches (the flag upper-cased). KEYS [1] ls:K:r; ARGV target
 * ids. Returns how many claimed were not a managed identity's target.
 */
export const CLAIM = `
local unmanaged = 0
for _, id in ipairs(ARGV) do
  local entry = redis.call('HGET', KEYS[1], id)
  if entry then
    local flag = string.sub(entry, 1, 1)
    if flag == 'u' or flag == 'm' then
      redis.call('HSET', KEYS[1], id, string.upper(flag) .. string.sub(entry, 2))
      if flag == 'u' then unmanaged = unmanaged + 1 end
    end
  end
end
return unmanaged
`;

import { USER_COMPARISON_VERSION } from '../../domain/user-diff.js';

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
 * identity hashes of the kind, [4..5] of their docs, [6] the kind ('u' or 'g': only users are found
 * clean), then per resource: target id, externalId ('' none), lower-cased name, compact form. A managed user of the sync's owner
 * whose stored desired state and listed form are those its hash's dg recorded (MARK_CLEAN: with the
 * version of the comparison rules, domain/user-diff.ts), not parked and with no create pending, is
 * clean: its id goes to ls:u:clean, and the plan counts it unchanged without reading it
 * (CLEAN_USERS) — unless its account is listed twice (a page shifted under the listing): then it
 * is planned. Returns {resources new to the
 * index, of them the managed identities' targets (any input's)}.
 */
export const INDEX_PAGE = `
local listed, byExternalId, byName, targetIds, managed, clean = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local scope, stem, suffix, docStem, docSuffix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local users = ARGV[6] == 'u'
local added, addedManaged = 0, 0
local function isClean(holder, h, id, packed)
  if not users or not h[2] or h[3] ~= id or h[4] or h[5] then return false end
  local doc = redis.call('GET', docStem .. holder .. docSuffix)
  return doc and h[2] == redis.sha1hex('${USER_COMPARISON_VERSION}\\n' .. doc .. '\\n' .. packed)
end
for i = 7, #ARGV, 4 do
  local id, externalId, name, packed = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local holder = redis.call('HGET', targetIds, id)
  local flag = 'u'
  if holder and redis.call('SISMEMBER', managed, holder) == 1 then
    flag = 'm'
    local h = redis.call('HMGET', stem .. holder .. suffix, 'o', 'dg', 't', 'pk', 'pc')
    if scope ~= '' and h[1] and h[1] ~= scope then
      flag = 'o'
    elseif isClean(holder, h, id, packed) then
      redis.call('SADD', clean, holder)
    end
  end
  if redis.call('HSET', listed, id, flag .. packed) == 1 then
    added = added + 1
    if flag ~= 'u' then addedManaged = addedManaged + 1 end
  elseif holder then
    redis.call('SREM', clean, holder)
  end
  if externalId ~= '' then redis.call('HSET', byExternalId, externalId, id) end
  redis.call('HSET', byName, name, id)
end
return {added, addedManaged}
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

/**
 * Of a chunk of users, those the listing found clean (INDEX_PAGE) and the run stages no desired
 * state for: their accounts are claimed as their matches, as CANDIDATES claims a recorded target
 * id; '1' each, else '' (one whose account an earlier match took is planned as any other). KEYS
 * [1] ls:u:clean, [2] src:u:docs, [3] ls:u:r. ARGV [1..2] the family of user identity hashes, then
 * the ids.
 */
export const CLEAN_USERS = `
local stem, suffix = ARGV[1], ARGV[2]
local out = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  local clean = ''
  if redis.call('SISMEMBER', KEYS[1], id) == 1 and redis.call('HEXISTS', KEYS[2], id) == 0 then
    local t = redis.call('HGET', stem .. id .. suffix, 't')
    local entry = t and redis.call('HGET', KEYS[3], t)
    if entry and string.sub(entry, 1, 1) == 'm' then
      redis.call('HSET', KEYS[3], t, 'M' .. string.sub(entry, 2))
      clean = '1'
    end
  end
  out[#out + 1] = clean
end
return out
`;

/**
 * Records the users a plan found matching their accounts as listed: their dg, the SHA-1 of their
 * desired state and the account's compact form as the plan compared them (cleanDigest in
 * sync-listing.store.ts), which INDEX_PAGE computes again from what is stored and listed then —
 * so a dg that no longer fits either finds nobody clean. Each only where the identity exists (a
 * first sync records them once it wrote them). KEYS [1] ls:u:r (routes the call). ARGV [1..2] the
 * family of user identity hashes, then per user: id, dg.
 */
export const MARK_CLEAN = `
local stem, suffix = ARGV[1], ARGV[2]
for i = 3, #ARGV, 2 do
  local key = stem .. ARGV[i] .. suffix
  if redis.call('EXISTS', key) == 1 then redis.call('HSET', key, 'dg', ARGV[i + 1]) end
end
return 0
`;

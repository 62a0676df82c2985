import { GROUP_COMPARISON_VERSION } from '../../domain/group-diff.js';
import { USER_COMPARISON_VERSION } from '../../domain/user-diff.js';
import { BULK_HELPERS } from './bulk.lua.js';

/**
 * Lua scripts of a full sync's clean identities (src/store/sync-clean.store.ts): those a sync last
 * found matching their accounts, whose desired state and account are still as it saw them — the
 * plan counts them unchanged without reading them. Users are found clean as the listing is indexed
 * (INDEX_PAGE in sync-listing.lua.ts), groups once the plan's users are planned (CLEAN_GROUPS).
 */

/**
 * What a clean digest (dg) starts with, per kind: the version of the rules its kind is compared by
 * (cleanDigest in sync-clean.store.ts computes it as the scripts here do).
 */
export const DIGEST_PREFIX = {
  user: `${USER_COMPARISON_VERSION}`,
  group: `g${GROUP_COMPARISON_VERSION}`,
} as const;

/**
 * Of a chunk of users, those the listing found clean (INDEX_PAGE) and the run stages no desired
 * state for: their accounts are claimed as their matches, as CANDIDATES claims a recorded target
 * id; '1' each, else '' (one whose account an earlier match took is planned as any other). With
 * ARGV[3] '1' the listing claimed them already (INDEX_PAGE's claim): they are only counted, and
 * one whose desired state is staged after all leaves ls:u:clean and gives back unclaimed the
 * account the listing claimed for it (its current target id may have moved since). KEYS [1]
 * ls:u:clean, [2] src:u:docs, [3] ls:u:r. ARGV [1..2] the family of user identity hashes, [3] the
 * claim ('1' or ''), then the ids. Returns {the flags, the accounts given back} (to be indexed by
 * externalId and name: SyncListing.reindex).
 */
export const CLEAN_USERS = `
local stem, suffix, claimed = ARGV[1], ARGV[2], ARGV[3] == '1'
${BULK_HELPERS}
local ids = {}
for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] end
local found = bulkRead('HMGET', KEYS[1], ids)
-- Only users found clean are looked for among the staged (whose docs the reply would carry).
local cleanIds, cleanAt, staged = {}, {}, {}
for i = 1, #ids do
  if found[i] then
    cleanIds[#cleanIds + 1] = ids[i]
    cleanAt[#cleanIds] = i
  end
end
for j, doc in ipairs(bulkRead('HMGET', KEYS[2], cleanIds)) do staged[cleanAt[j]] = doc end
local out, targets, at, back = {}, {}, {}, {}
for i = 1, #ids do
  out[i] = ''
  if found[i] and claimed then
    if staged[i] then
      -- Claimed by the listing, yet staged after all: the account it claimed is given back, for
      -- the user's plan to match as any other's.
      targets[#targets + 1] = found[i]
      at[#targets] = i
      back[#back + 1] = ids[i]
    else
      out[i] = '1'
    end
  elseif found[i] and not staged[i] then
    local t = redis.call('HGET', stem .. ids[i] .. suffix, 't')
    if t then
      targets[#targets + 1] = t
      at[#targets] = i
    end
  end
end
local entries = bulkRead('HMGET', KEYS[3], targets)
local writes, taken, given = {}, {}, {}
for j, t in ipairs(targets) do
  local entry = entries[j]
  local flag = entry and string.sub(entry, 1, 1)
  if claimed then
    if flag == 'M' then
      writes[#writes + 1] = t
      writes[#writes + 1] = 'm' .. string.sub(entry, 2)
      given[#given + 1] = t
    end
  elseif flag == 'm' and not taken[t] then
    taken[t] = true
    writes[#writes + 1] = t
    writes[#writes + 1] = 'M' .. string.sub(entry, 2)
    out[at[j]] = '1'
  end
end
bulkWrite('HSET', KEYS[3], writes)
bulkWrite('HDEL', KEYS[1], back)
return {out, given}
`;

/**
 * Records the identities a plan found matching their accounts as listed: their dg, the SHA-1 of
 * their desired state and the account's compact form as the plan compared them (cleanDigest in
 * sync-clean.store.ts), which INDEX_PAGE (users) and CLEAN_GROUPS compute again from what is
 * stored and listed then — so a dg that no longer fits either finds nobody clean. Each only where
 * the identity exists (a first sync records them once it wrote them). KEYS [1] ls:K:r (routes the
 * call). ARGV [1..2] the family of the kind's identity hashes, then per identity: id, dg.
 */
export const MARK_CLEAN = `
local stem, suffix = ARGV[1], ARGV[2]
for i = 3, #ARGV, 2 do
  local key = stem .. ARGV[i] .. suffix
  if redis.call('EXISTS', key) == 1 then redis.call('HSET', key, 'dg', ARGV[i + 1]) end
end
return 0
`;

/**
 * Of a chunk of groups, those the plan need not read (one '1' each, else ''): a managed group of
 * the run's owner, not parked, no create pending, its desired state not staged by the run, whose
 * recorded account is listed unclaimed (the listing's entry for the group's target id), whose
 * stored desired state and account are those its dg recorded (MARK_CLEAN), and whose members
 * resolve, as MEMBER_TARGETS resolves them for the plan, to exactly the account's members — each a
 * user of the run's source with a target id (its match in this plan, else its recorded one). Such
 * a group's account is claimed as its match here. A group that is not, or whose members would take
 * the call past ARGV[12] members, is planned as any other. KEYS [1] src:g:docs, [2] ls:g:r, [3]
 * P:g:tid, [4] P:g:managed, [5] the source's users (as MEMBER_TARGETS), [6] the plan's matched hash,
 * [7] ls:u:clean. ARGV [1..2] the family of group identity hashes, [3..4] of their docs, [5..6] of
 * their member sets, [7..8] of user identity hashes, [9] the owner the sync writes as ('' none),
 * [10] 'h' or 'z' (the kind of KEYS[5]), [11] '1' when the listing claimed the clean users'
 * accounts, [12] the members the call may resolve, then the group ids.
 */
export const CLEAN_GROUPS = `
local staged, listed, tids, managed, source, matched, clean = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local stem, suffix, docStem, docSuffix = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local memStem, memSuffix, userStem, userSuffix = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local scope, mode, claim, budget = ARGV[9], ARGV[10], ARGV[11] == '1', tonumber(ARGV[12])
${BULK_HELPERS}
-- Each member's target id as the plan compares it (MEMBER_TARGETS: its match in this plan, the
-- account the listing claimed for it, else its recorded one), false where it is no user of the
-- run's source or has none. A user whose account the listing claimed (claim) is a desired identity
-- of the run's owner (INDEX_PAGE), so one of its source: only the others are looked up there.
local function resolve(members)
  local over = redis.call('EXISTS', matched) == 1 and bulkRead('HMGET', matched, members) or {}
  local claimed = claim and bulkRead('HMGET', clean, members) or {}
  local ask, at = {}, {}
  for j, member in ipairs(members) do
    if not claimed[j] then
      ask[#ask + 1] = member
      at[#ask] = j
    end
  end
  local outside = {}
  for k, known in ipairs(bulkRead(mode == 'h' and 'HMGET' or 'ZMSCORE', source, ask)) do
    if not known then outside[at[k]] = true end
  end
  local targets = {}
  for j, member in ipairs(members) do
    local t = not outside[j] and (over[j] or claimed[j] or redis.call('HGET', userStem .. member .. userSuffix, 't'))
    targets[j] = t and t ~= '' and t
  end
  return targets
end
-- The account's members are the members' target ids, as sets (diffGroup compares them so).
local function sameMembers(targets, from, to, packed)
  local want, n = {}, 0
  for j = from, to do
    local t = targets[j]
    if not t then return false end
    if not want[t] then
      want[t] = true
      n = n + 1
    end
  end
  local ok, form = pcall(cjson.decode, packed)
  if not ok or type(form) ~= 'table' or type(form[3]) ~= 'table' then return false end
  local have, k = {}, 0
  for _, value in ipairs(form[3]) do
    if not want[value] then return false end
    if not have[value] then
      have[value] = true
      k = k + 1
    end
  end
  return k == n
end
local ids = {}
for i = 13, #ARGV do ids[#ids + 1] = ARGV[i] end
-- Groups that may be clean: managed, recorded clean, of the run's owner.
local isManaged = bulkRead('SMISMEMBER', managed, ids)
local open, marks, targets = {}, {}, {}
for i, id in ipairs(ids) do
  if isManaged[i] == 1 then
    local h = redis.call('HMGET', stem .. id .. suffix, 'o', 'dg', 't', 'pk', 'pc')
    if h[2] and h[3] and not h[4] and not h[5] and (scope == '' or h[1] == scope) then
      open[#open + 1] = i
      marks[#open] = h[2]
      targets[#open] = h[3]
    end
  end
end
-- Of them, those whose own account is listed unclaimed, it and their desired state as recorded
-- (the stored one: not staged by the run).
local holders = bulkRead('HMGET', tids, targets)
local entries = bulkRead('HMGET', listed, targets)
local docKeys = {}
for j, i in ipairs(open) do docKeys[j] = docStem .. ids[i] .. docSuffix end
local docs = bulkGet(docKeys)
local found, members = {}, {}
for j, i in ipairs(open) do
  local entry, doc = entries[j], docs[j]
  local packed = entry and string.sub(entry, 2)
  if holders[j] == ids[i] and entry and string.sub(entry, 1, 1) == 'm' and doc
    and marks[j] == redis.sha1hex('${DIGEST_PREFIX.group}\\n' .. doc .. '\\n' .. packed)
    and redis.call('HEXISTS', staged, ids[i]) == 0 then
    local key = memStem .. ids[i] .. memSuffix
    local size = redis.call('SCARD', key)
    if size <= budget then
      budget = budget - size
      found[#found + 1] = {i, targets[j], packed, #members + 1, #members + size}
      for _, member in ipairs(redis.call('SMEMBERS', key)) do members[#members + 1] = member end
    end
  end
end
-- Of them, those whose members resolve to the account's: their accounts claimed as their matches.
local resolved = resolve(members)
local out, claims = {}, {}
for i = 1, #ids do out[i] = '' end
for _, g in ipairs(found) do
  local i, t, packed, from, to = g[1], g[2], g[3], g[4], g[5]
  if sameMembers(resolved, from, to, packed) then
    out[i] = '1'
    claims[#claims + 1] = t
    claims[#claims + 1] = 'M' .. packed
  end
end
bulkWrite('HSET', listed, claims)
return out
`;

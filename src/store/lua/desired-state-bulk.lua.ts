import type { IdentityKind } from '../../domain/identity.js';
import type { Keys } from '../keys.js';
import { BULK_HELPERS } from './bulk.lua.js';

/**
 * Chunk reads of a full sync's plan (src/store/desired-state.bulk.ts): one call per chunk of ids,
 * answering a flat array instead of several replies per identity (a sync reads every identity, and
 * each reply costs objects to parse). Key layout: src/store/keys.ts.
 */

/**
 * Per id: its desired state as the sync sees it — staged by the sync ('t' + its src:K:docs entry) or
 * else stored ('s' + the stored doc), '' for none — its target id, managed flag and pending
 * create, for a stored group its member ids joined by "\\n", whether a desired state is stored
 * ('1' / '0'), and its owner ('' none). KEYS [1] src:K:docs, then per id
 * its identity hash and doc (and for groups its member set) as readChunkKeys builds them.
 * ARGV [1] keys per id (2 or 3), then the ids.
 */
export const READ_CHUNK = `
local docs, per = KEYS[1], tonumber(ARGV[1])
local out = {}
local at = 2
for i = 2, #ARGV do
  local f = redis.call('HMGET', KEYS[at], 't', 'm', 'pc', 'o')
  local doc, members, stored = redis.call('HGET', docs, ARGV[i]), '', '0'
  if doc then
    doc = 't' .. doc
    if redis.call('EXISTS', KEYS[at + 1]) == 1 then stored = '1' end
  else
    doc = redis.call('GET', KEYS[at + 1])
    if doc then
      doc = 's' .. doc
      stored = '1'
      if per == 3 then members = table.concat(redis.call('SMEMBERS', KEYS[at + 2]), '\\n') end
    else doc = '' end
  end
  out[#out + 1] = doc
  out[#out + 1] = f[1] or ''
  out[#out + 1] = f[2] or ''
  out[#out + 1] = f[3] or ''
  out[#out + 1] = members
  out[#out + 1] = stored
  out[#out + 1] = f[4] or ''
  at = at + per
end
return out
`;

export function readChunkKeys(
  keys: Keys,
  kind: IdentityKind,
  stagedDocs: string,
  ids: readonly string[],
): string[] {
  return [
    stagedDocs,
    ...ids.flatMap((id) => [
      keys.identity(kind, id),
      keys.doc(kind, id),
      ...(kind === 'group' ? [keys.members(id)] : []),
    ]),
  ];
}

/**
 * The target id of each group member as the plan compares it: '-' when it is left out, else the
 * target id its match in this plan gave ('' none: to be created), else the one recorded ('' none).
 * A member the sync's source does not list is another input's user when its owner is not the
 * sync's (SPEC §6: memberships may name users of any input): its recorded target id, '' while it
 * has none, '-' while parked; any other is left out. KEYS [1] the source's users (src:u:ids hash;
 * P:u:all when the desired state is the source; P:u:own:<owner> for an unchanged source), [2] the
 * plan's matched hash, [3] P:u:all, [4] the listing's clean users (ls:u:clean).
 * ARGV [1] 'h' or 'z' (the kind of KEYS[1]), [2..3] the family of user identity hashes (stem,
 * suffix), [4] the owner the sync writes as ('' none), [5] '1' when the listing claimed the clean
 * users' accounts (their matches: SyncListing.claimCleanWhenListed), then the member ids.
 */
export const MEMBER_TARGETS = `
local source, matched, all, clean, mode = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
local stem, suffix, scope = ARGV[2], ARGV[3], ARGV[4]
${BULK_HELPERS}
local ids = {}
for i = 6, #ARGV do ids[#ids + 1] = ARGV[i] end
local listed = bulkRead(mode == 'h' and 'HMGET' or 'ZMSCORE', source, ids)
local matches = bulkRead('HMGET', matched, ids)
if ARGV[5] == '1' then
  -- The accounts the listing claimed for clean users are their matches in this plan.
  local claimed = bulkRead('HMGET', clean, ids)
  for i = 1, #ids do matches[i] = matches[i] or claimed[i] end
end
local others, at = {}, {}
for i = 1, #ids do
  if not listed[i] then
    others[#others + 1] = ids[i]
    at[#others] = i
  end
end
local desired = bulkRead('ZMSCORE', all, others)
local out = {}
for i = 1, #ids do
  if listed[i] then
    out[i] = matches[i] or redis.call('HGET', stem .. ids[i] .. suffix, 't') or ''
  else
    out[i] = '-'
  end
end
for j, id in ipairs(others) do
  if desired[j] then
    local f = redis.call('HMGET', stem .. id .. suffix, 't', 'o', 'pk')
    if f[2] and f[2] ~= scope then out[at[j]] = f[1] or (f[3] and '-' or '') end
  end
end
return out
`;

/**
 * Stored identities the sync's source no longer lists, with what deprovisioning needs: for each id
 * of a walk phase that is neither in the source nor visited by an earlier phase, nor owned by
 * another input than the one the sync writes as (SPEC §6, Ownership), its id, whether it is
 * desired (1/0), target id, managed flag and pending create. An id already among the plan's
 * removals is skipped too (a set walked while it changes may give an id twice). KEYS [1] the
 * source's ids (src:K:ids, or P:K:all), [2] P:K:all, [3] P:K:managed, [4] the plan's removals, then
 * per id its identity hash and doc. ARGV [1] 'h' or 'z' (the kind of KEYS[1]), [2] the phase (all,
 * managed, creating), [3] the removals' prefix ("user:" or "group:"), [4] the owner the sync writes
 * as ('' any), then the ids.
 */
export const NOT_IN_SOURCE = `
local source, all, managed, removals = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local mode, phase, prefix, scope = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local out = {}
local at = 5
for i = 5, #ARGV do
  local id = ARGV[i]
  local skip
  if mode == 'h' then skip = redis.call('HEXISTS', source, id) == 1
  else skip = redis.call('ZSCORE', source, id) ~= false end
  if not skip and phase ~= 'all' then skip = redis.call('ZSCORE', all, id) ~= false end
  if not skip and phase == 'creating' then skip = redis.call('SISMEMBER', managed, id) == 1 end
  if not skip then skip = redis.call('SISMEMBER', removals, prefix .. id) == 1 end
  local f = skip and {} or redis.call('HMGET', KEYS[at], 't', 'm', 'pc', 'o')
  if not skip and scope ~= '' and f[4] and f[4] ~= scope then skip = true end
  if not skip then
    out[#out + 1] = id
    out[#out + 1] = redis.call('EXISTS', KEYS[at + 1]) == 1 and '1' or '0'
    out[#out + 1] = f[1] or ''
    out[#out + 1] = f[2] or ''
    out[#out + 1] = f[3] or ''
  end
  at = at + 2
end
return out
`;

/**
 * Which identities of a chunk the store would not apply as the sync's input writes them (SPEC §6,
 * Ownership; desired-state-owner.lua.ts): '!' for one parked (its conflict waits for an admin) —
 * '?' when that conflict is its own `ambiguous` one (two platform accounts fit, no other input
 * involved) —, the owner of another input's identity that holds its lower-cased name or its
 * externalId (its write would be parked), else ''. KEYS [1] P:K:name, [2] P:K:ext. ARGV [1] the
 * owner the sync writes as ('' none: only parked ones are told), [2..3] the family of identity
 * hashes of the kind, [4..5] the family of conflicts, then per identity: id, lower-cased name,
 * externalId ('' none).
 */
export const HELD_ELSEWHERE = `
local names, externalIds = KEYS[1], KEYS[2]
local scope, stem, suffix = ARGV[1], ARGV[2], ARGV[3]
local conflictStem, conflictSuffix = ARGV[4], ARGV[5]
local function parked(pk)
  if redis.call('HGET', conflictStem .. pk .. conflictSuffix, 'kind') == 'ambiguous' then return '?' end
  return '!'
end
local function foreign(index, value, id)
  if value == '' then return nil end
  local holder = redis.call('HGET', index, value)
  if not holder or holder == id then return nil end
  local o = redis.call('HGET', stem .. holder .. suffix, 'o')
  if o and o ~= scope then return o end
  return nil
end
local out = {}
for i = 6, #ARGV, 3 do
  local id, name, x = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local held = ''
  local pk = redis.call('HGET', stem .. id .. suffix, 'pk')
  if pk then held = parked(pk)
  elseif scope ~= '' then held = foreign(names, name, id) or foreign(externalIds, x, id) or '' end
  out[#out + 1] = held
end
return out
`;

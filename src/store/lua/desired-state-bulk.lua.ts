import type { IdentityKind } from '../../domain/identity.js';
import type { Keys } from '../keys.js';

/**
 * Chunk reads of a full sync's plan (src/store/desired-state.bulk.ts): one call per chunk of ids,
 * answering a flat array instead of several replies per identity (a sync reads every identity, and
 * each reply costs objects to parse). Key layout: src/store/keys.ts.
 */

/**
 * Per id: its desired state as the sync sees it — staged by the sync ('t' + its src:K:docs entry) or
 * else stored ('s' + the stored doc), '' for none — its target id, managed flag and pending
 * create, for a stored group its member ids joined by "\\n", and whether a desired state is stored
 * ('1' / '0'). KEYS [1] src:K:docs, then per id
 * its identity hash and doc (and for groups its member set) as readChunkKeys builds them.
 * ARGV [1] keys per id (2 or 3), then the ids.
 */
export const READ_CHUNK = `
local docs, per = KEYS[1], tonumber(ARGV[1])
local out = {}
local at = 2
for i = 2, #ARGV do
  local f = redis.call('HMGET', KEYS[at], 't', 'm', 'pc')
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
 * The target id of each group member as the plan compares it: '-' when the member is not a user
 * the sync's source lists, else the target id its match in this plan gave ('' none: to be created),
 * else the one recorded ('' none). KEYS [1] the source's users (src:u:ids hash, or P:u:all when
 * the desired state is the source), [2] the plan's matched hash. ARGV [1] 'h' or 'z' (the kind of
 * KEYS[1]), [2..3] the family of user identity hashes (stem, suffix), then the member ids.
 */
export const MEMBER_TARGETS = `
local source, matched, mode = KEYS[1], KEYS[2], ARGV[1]
local stem, suffix = ARGV[2], ARGV[3]
local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local listed
  if mode == 'h' then listed = redis.call('HEXISTS', source, id) == 1
  else listed = redis.call('ZSCORE', source, id) ~= false end
  if not listed then out[#out + 1] = '-'
  else
    local m = redis.call('HGET', matched, id)
    if m then out[#out + 1] = m
    else out[#out + 1] = redis.call('HGET', stem .. id .. suffix, 't') or '' end
  end
end
return out
`;

/**
 * Stored identities the sync's source no longer lists, with what deprovisioning needs: for each id
 * of a walk phase that is neither in the source nor visited by an earlier phase, its id, whether
 * it is desired (1/0), target id, managed flag and pending create. An id already among the
 * plan's removals is skipped too (a set walked while it changes may give an id twice). KEYS [1] the
 * source's ids (src:K:ids, or P:K:all), [2] P:K:all, [3] P:K:managed, [4] the plan's removals, then
 * per id its identity hash and doc. ARGV [1] 'h' or 'z' (the kind of KEYS[1]), [2] the phase (all,
 * managed, creating), [3] the removals' prefix ("user:" or "group:"), then the ids.
 */
export const NOT_IN_SOURCE = `
local source, all, managed, removals = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local mode, phase, prefix = ARGV[1], ARGV[2], ARGV[3]
local out = {}
local at = 5
for i = 4, #ARGV do
  local id = ARGV[i]
  local skip
  if mode == 'h' then skip = redis.call('HEXISTS', source, id) == 1
  else skip = redis.call('ZSCORE', source, id) ~= false end
  if not skip and phase ~= 'all' then skip = redis.call('ZSCORE', all, id) ~= false end
  if not skip and phase == 'creating' then skip = redis.call('SISMEMBER', managed, id) == 1 end
  if not skip then skip = redis.call('SISMEMBER', removals, prefix .. id) == 1 end
  if not skip then
    local f = redis.call('HMGET', KEYS[at], 't', 'm', 'pc')
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

/**
 * Lua scripts of a full sync's index of the platform's listing (src/store/sync-listing.store.ts;
 * key layout: src/store/keys.ts, P:sync:<id>:ls:…). A resource's entry in ls:K:r is one flag
 * character and its compact form (domain/observed-form.ts): `u` listed, `m` listed and recorded as
 * a managed identity's target, `o` the target of another input's identity (SPEC §6, Ownership: a
 * match of the sync never takes it); `u` and `m` upper-cased once a match of the plan claimed it.
 */

/**
 * Indexes one page. KEYS [1] ls:K:r, [2] ls:K:x, [3] ls:K:n, [4] P:K:tid, [5] P:K:managed. ARGV [1]
 * the owner the sync writes as ('' none: every input's), [2..3] the family of identity hashes of
 * the kind, then per resource: target id, externalId ('' none), lower-cased name, compact form.
 * Returns {resources new to the index, of them the managed identities' targets (any input's)}.
 */
export const INDEX_PAGE = `
local listed, byExternalId, byName, targetIds, managed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local scope, stem, suffix = ARGV[1], ARGV[2], ARGV[3]
local added, addedManaged = 0, 0
for i = 4, #ARGV, 4 do
  local id, externalId, name, packed = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local holder = redis.call('HGET', targetIds, id)
  local flag = 'u'
  if holder and redis.call('SISMEMBER', managed, holder) == 1 then
    flag = 'm'
    local o = scope ~= '' and redis.call('HGET', stem .. holder .. suffix, 'o')
    if o and o ~= scope then flag = 'o' end
  end
  if redis.call('HSET', listed, id, flag .. packed) == 1 then
    added = added + 1
    if flag ~= 'u' then addedManaged = addedManaged + 1 end
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

/**
 * Lua scripts of a full sync's staging (src/store/sync-staging.store.ts): what a sync reads of its
 * source, checked and kept per sync. Key layout: src/store/keys.ts (P:sync:<id>:src:…); every key
 * comes in KEYS. Each script sets the time to live it is given (ARGV[1], ms; 0: none) on the keys it
 * writes, so that the staging of a request that died half-way goes away by itself.
 */

/**
 * The ledger of the rules across items (domain/snapshot-ledger.ts, same rules as MemoryLedger):
 * records each item's id, lower-cased name and given externalId with its ref, and answers for each
 * the ref of the earlier item it clashes with ('' for none): by id, by name, on the target.
 * KEYS [1] src:K:ids, [2] src:K:names, [3] src:K:ext. ARGV [1] ttl, then per item: ref, id, name,
 * externalId ('' when absent). An ids value is "<1|0><ref>": 1 when the item gave its own externalId.
 */
export const RECORD_ITEMS = `
local ids, names, ext = KEYS[1], KEYS[2], KEYS[3]
local ttl = tonumber(ARGV[1])
local function position(ref) return tonumber(string.match(ref, '%d+')) end
-- No item gave an externalId yet (the usual case): nothing to look up for the others.
local anyGiven = redis.call('EXISTS', ext) == 1
local out = {}
for i = 2, #ARGV, 4 do
  local ref, id, name, x = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local dup, same, clash = '', '', ''
  if id ~= '' and redis.call('HSETNX', ids, id, (x ~= '' and '1' or '0') .. ref) == 0 then
    dup = string.sub(redis.call('HGET', ids, id), 2)
  end
  if name ~= '' and redis.call('HSETNX', names, name, ref) == 0 then same = redis.call('HGET', names, name) end
  if x == '' then
    if id ~= '' and anyGiven then clash = redis.call('HGET', ext, id) or '' end
  else
    local given = redis.call('HGET', ext, x) or ''
    local withId = redis.call('HGET', ids, x)
    local plain = ''
    if withId and string.sub(withId, 1, 1) == '0' and string.sub(withId, 2) ~= ref then plain = string.sub(withId, 2) end
    if given ~= '' and plain ~= '' then
      if position(given) <= position(plain) then clash = given else clash = plain end
    elseif given ~= '' then clash = given else clash = plain end
    if clash == '' then
      redis.call('HSET', ext, x, ref)
      anyGiven = true
    end
  end
  out[#out + 1] = dup
  out[#out + 1] = same
  out[#out + 1] = clash
end
if ttl > 0 then for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ttl) end end
return out
`;

/**
 * Stages a batch of valid items: appends their ids to src:K:order and keeps, in src:K:docs, those
 * whose desired state differs from the stored one. KEYS [1] src:K:order,
 * [2] src:K:docs, then per item its doc key (P:K:d:<id>) and, for groups, its member set.
 * ARGV [1] ttl, [2] 'u' or 'g', then per item: id, canonical JSON, and for groups the member ids
 * joined by "\\n" and their count. Returns how many were kept in src:K:docs.
 */
export const STAGE_ITEMS = `
local order, docs = KEYS[1], KEYS[2]
local ttl, kind = tonumber(ARGV[1]), ARGV[2]
local per = kind == 'g' and 4 or 2
local ids, kept, at = {}, 0, 3
for i = 3, #ARGV, per do
  local id, doc = ARGV[i], ARGV[i + 1]
  ids[#ids + 1] = id
  local same = redis.call('GET', KEYS[at]) == doc
  if kind == 'g' then
    local memberKey, joined, count = KEYS[at + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
    if same and redis.call('SCARD', memberKey) ~= count then same = false end
    if same and count > 0 then
      for member in string.gmatch(joined, '[^\\n]+') do
        if redis.call('SISMEMBER', memberKey, member) == 0 then
          same = false
          break
        end
      end
    end
    if not same then redis.call('HSET', docs, id, doc .. '\\n' .. joined) end
    at = at + 2
  else
    if not same then redis.call('HSET', docs, id, doc) end
    at = at + 1
  end
  if not same then kept = kept + 1 end
end
if #ids > 0 then redis.call('RPUSH', order, unpack(ids)) end
if ttl > 0 then
  redis.call('PEXPIRE', order, ttl)
  if redis.call('EXISTS', docs) == 1 then redis.call('PEXPIRE', docs, ttl) end
end
return kept
`;

/** Scratch table entries, the first value of a key kept. KEYS [1] the table; ARGV [1] ttl, then key, value pairs. */
export const REMEMBER = `
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`;

/** Sets or clears (ttl 0) the time to live of the keys given that exist. ARGV [1] ttl (ms). */
export const EXPIRE_KEYS = `
local ttl = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) else redis.call('PERSIST', key) end
end
return 1
`;

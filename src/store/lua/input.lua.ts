/**
 * Lua scripts of the inputs' own state (src/store/input-freshness.store.ts, src/store/delta.store.ts).
 * Key layout: src/store/keys.ts; every key comes in KEYS.
 */

/**
 * A read of an input's source that succeeded. KEYS[1] P:input:fresh:<owner>. ARGV[1] when (ms),
 * [2] how (delta, poll, full), [3] when its newest change happened ('' none), [4] what the read
 * cost (JSON; '' none: the last one is forgotten), [5..7] its changes, entries read and duration
 * (ms), added to the totals ('' none). Times only grow.
 */
export const READ_SUCCEEDED = `
local key = KEYS[1]
local function raise(field, value)
  if value == '' then return end
  local current = tonumber(redis.call('HGET', key, field) or '0')
  if tonumber(value) > current then redis.call('HSET', key, field, value) end
end
raise('readAt', ARGV[1])
raise('changeAt', ARGV[3])
redis.call('HSET', key, 'readKind', ARGV[2], 'failures', '0')
redis.call('HDEL', key, 'lastError')
if ARGV[4] == '' then redis.call('HDEL', key, 'cost') else redis.call('HSET', key, 'cost', ARGV[4]) end
if ARGV[5] ~= '' then
  redis.call('HINCRBY', key, 'readsTotal', 1)
  redis.call('HINCRBY', key, 'changesTotal', tonumber(ARGV[5]))
  redis.call('HINCRBY', key, 'entriesTotal', tonumber(ARGV[6]))
  redis.call('HINCRBY', key, 'durationTotal', tonumber(ARGV[7]))
end
return 0
`;

/**
 * An input heard from its source by a push (a hook's delivery). KEYS[1] P:input:fresh:<owner>.
 * ARGV[1] when (ms), [2] when its newest change happened (ms). Times only grow; the failures of its
 * reads are left as they are (a push does not say its pulls work).
 */
export const PUSHED = `
local key = KEYS[1]
local function raise(field, value)
  local current = tonumber(redis.call('HGET', key, field) or '0')
  if tonumber(value) > current then redis.call('HSET', key, field, value) return true end
  return false
end
if raise('readAt', ARGV[1]) then redis.call('HSET', key, 'readKind', 'push') end
raise('changeAt', ARGV[2])
return 0
`;

/**
 * Users an input's deltas removed within a window. KEYS[1] P:input:removals:<owner>. ARGV[1] now
 * (ms), [2] the window (ms), [3] a run id and [4] its count to add ('' none). Entries older than
 * the window go; returns the count within it (the added one included).
 */
export const REMOVALS_WITHIN = `
local key, now, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if ARGV[3] ~= '' and tonumber(ARGV[4]) > 0 then
  redis.call('ZADD', key, now, ARGV[3] .. '\\n' .. ARGV[4])
  redis.call('PEXPIRE', key, window)
end
local total = 0
for _, entry in ipairs(redis.call('ZRANGE', key, 0, -1)) do
  total = total + tonumber(string.match(entry, '\\n(%d+)$') or '0')
end
return total
`;

/**
 * Keeps the digest of a source's read a full sync applied, unless anything else wrote the input's
 * identities since the sync began writing (that write deleted the field: desired-state.store.ts).
 * KEYS[1] P:input:digests. ARGV[1] the owner, [2] the sync's mark set before its writes, [3] the
 * digest. Returns 1 when kept.
 */
export const KEEP_DIGEST = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;

/**
 * Lua helpers that run one command over many fields or members instead of a call each: a call from
 * a script costs about a microsecond of Redis before the command does anything, so a script that
 * loops over a batch spends most of its time on calls. Lists are cut at BULK_CHUNK elements (Lua's
 * unpack stops near 8,000; a chunk is even, so pairs are never split).
 *
 * - `bulkRead(command, key, list)`: the replies of `command key …` (HMGET, SMISMEMBER, ZMSCORE), one
 *   per element, in order.
 * - `bulkGet(keys)`: the values of string keys (MGET), false where none.
 * - `bulkWrite(command, key, list)`: runs `command key …` (HSET pairs, SADD, SREM, HDEL) where the
 *   list is not empty.
 */
export const BULK_CHUNK = 4000;

export const BULK_HELPERS = `
local function inChunks(list, call)
  local out = {}
  for from = 1, #list, ${BULK_CHUNK} do
    local reply = call(unpack(list, from, math.min(from + ${BULK_CHUNK - 1}, #list)))
    if type(reply) == 'table' then
      for i = 1, #reply do out[#out + 1] = reply[i] end
    end
  end
  return out
end
local function bulkRead(command, key, list)
  return inChunks(list, function(...) return redis.call(command, key, ...) end)
end
local function bulkGet(keys)
  return inChunks(keys, function(...) return redis.call('MGET', ...) end)
end
local function bulkWrite(command, key, list)
  inChunks(list, function(...) return redis.call(command, key, ...) end)
end
`;

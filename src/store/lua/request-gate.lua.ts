/**
 * Lua scripts of the shared target gate (src/store/request-gate.store.ts). KEYS[1] is P:target:gate
 * (keys.platformGate()), a hash: pause = pause-until (ms), tat = the GCRA theoretical arrival time
 * (ms). Times come from Redis TIME, so the clocks of the processes do not matter.
 */

/**
 * ARGV[1] the slot interval in ms (0 = no cap). Returns {pause wait ms, slot wait ms}: a pause
 * that still holds reserves nothing; otherwise the next free slot is reserved.
 */
export const ACQUIRE = `
local gate = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pause = tonumber(redis.call('HGET', gate, 'pause') or '0')
if pause > now then return {math.ceil(pause - now), 0} end
local interval = tonumber(ARGV[1])
if interval <= 0 then return {0, 0} end
local tat = tonumber(redis.call('HGET', gate, 'tat') or '0')
if tat < now then tat = now end
redis.call('HSET', gate, 'tat', tat + interval)
return {0, math.ceil(tat - now)}
`;

/** Extends the shared pause to at least now + ARGV[1] ms. Returns the pause-until time (ms). */
export const PAUSE = `
local gate = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local pause = tonumber(redis.call('HGET', gate, 'pause') or '0')
if untilMs > pause then redis.call('HSET', gate, 'pause', untilMs) end
redis.call('PEXPIRE', gate, math.max(tonumber(ARGV[1]), 1000) + 60000)
return untilMs
`;

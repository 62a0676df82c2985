import type { Keys } from '../store/keys.js';
import { LuaScript } from '../store/lua-script.js';
import type { RedisClient } from '../store/redis-connection.js';

/**
 * One gate in Redis in front of every target request of every process, because the platform's
 * limits are per tenant: a pause set when the target answers 429/503 with Retry-After, and
 * TARGET_MAX_RPS as a GCRA schedule — each request reserves the next free slot, spaced 1000/rps ms
 * apart, so no one-second window holds more than rps requests. Times come from Redis TIME.
 *
 * ARGV[1] is the prefix (as for every script), ARGV[2] the slot interval in ms (0 = no cap).
 * Returns {pause wait ms, slot wait ms}.
 */
const ACQUIRE = `
local gate = KEYS[1] .. ':target:gate'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pause = tonumber(redis.call('HGET', gate, 'pause') or '0')
if pause > now then return {math.ceil(pause - now), 0} end
local interval = tonumber(ARGV[2])
if interval <= 0 then return {0, 0} end
local tat = tonumber(redis.call('HGET', gate, 'tat') or '0')
if tat < now then tat = now end
redis.call('HSET', gate, 'tat', tat + interval)
return {0, math.ceil(tat - now)}
`;

/** Extends the shared pause to at least now + ARGV[2] ms. */
const PAUSE = `
local gate = KEYS[1] .. ':target:gate'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[2])
local pause = tonumber(redis.call('HGET', gate, 'pause') or '0')
if untilMs > pause then redis.call('HSET', gate, 'pause', untilMs) end
redis.call('PEXPIRE', gate, math.max(tonumber(ARGV[2]), 1000) + 60000)
return untilMs
`;

const acquireScript = new LuaScript(ACQUIRE);
const pauseScript = new LuaScript(PAUSE);

export interface RequestGate {
  /** Resolves when this process may send one request. */
  acquire(): Promise<void>;
  /** Holds every process back for the time the target asked for. */
  pause(ms: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Without a rate cap, the shared pause is read at most this often per process (a round trip saved per request). */
const PAUSE_CHECK_MS = 100;

export function redisRequestGate(redis: RedisClient, keys: Keys, maxRps: number): RequestGate {
  // 10% under the cap, so that jitter between send and arrival (network, a busy event loop on either
  // side, up to 100 ms over a second at 20 requests per second) cannot push a window over it.
  const interval = maxRps > 0 ? (1000 / maxRps) * 1.1 : 0;
  let pausedUntil = 0;
  let checkedAt = 0;
  return {
    async acquire() {
      for (;;) {
        if (interval === 0 && Date.now() - checkedAt < PAUSE_CHECK_MS) {
          if (pausedUntil <= Date.now()) return;
          await sleep(pausedUntil - Date.now());
          continue;
        }
        const [pauseWait, slotWait] = (await acquireScript.run(redis, keys.prefix, [interval])) as [
          number,
          number,
        ];
        checkedAt = Date.now();
        pausedUntil = Math.max(pausedUntil, checkedAt + pauseWait);
        if (pauseWait > 0) {
          await sleep(pauseWait);
          continue;
        }
        if (slotWait > 0) await sleep(slotWait);
        return;
      }
    },
    async pause(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
      await pauseScript.run(redis, keys.prefix, [Math.ceil(ms)]);
    },
  };
}

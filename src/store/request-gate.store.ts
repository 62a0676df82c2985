import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { ACQUIRE, PAUSE } from './lua/request-gate.lua.js';
import type { RedisClient } from './redis-connection.js';

const scripts = { acquire: new LuaScript(ACQUIRE), pause: new LuaScript(PAUSE) };

/**
 * The target gate's shared state in Redis (keys.platformGate()): the Retry-After pause and the
 * TARGET_MAX_RPS schedule of every process. The platform client's gate (src/platform/request-gate.ts)
 * drives it; each call is one atomic script.
 */
export class RequestGateStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** The shared pause still to wait, else a reserved slot (none when `intervalMs` is 0). */
  async acquire(intervalMs: number): Promise<{ pauseWaitMs: number; slotWaitMs: number }> {
    const [pauseWaitMs, slotWaitMs] = (await scripts.acquire.run(
      this.redis,
      [this.keys.platformGate()],
      [intervalMs],
    )) as [number, number];
    return { pauseWaitMs, slotWaitMs };
  }

  /** Extends the shared pause to at least `ms` from now. */
  async pause(ms: number): Promise<void> {
    await scripts.pause.run(this.redis, [this.keys.platformGate()], [ms]);
  }
}

/**
 * One gate in front of every target request of every process, because the platform's limits are
 * per tenant: a pause set when the target answers 429/503 with Retry-After, and TARGET_MAX_RPS as a
 * GCRA schedule — each request reserves the next free slot, spaced apart by the interval, so no
 * one-second window holds more than rps requests. The state all processes share lives behind a
 * GateBackend (src/store/request-gate.store.ts keeps it in Redis); this side keeps the per-process
 * part: a local copy of the pause, and the waiting.
 */

export interface GateWait {
  /** How long the shared pause still holds every request (ms; 0: none). */
  pauseWaitMs: number;
  /** How long until the slot reserved for this request (ms; 0: now, or no cap). */
  slotWaitMs: number;
}

/** The state the gate shares between processes. */
export interface GateBackend {
  /**
   * Reads the shared pause and, when none holds and `intervalMs` > 0, reserves the next free slot
   * (slots `intervalMs` apart); `intervalMs` 0 reserves nothing.
   */
  acquire(intervalMs: number): Promise<GateWait>;
  /** Extends the shared pause to at least `ms` from now. */
  pause(ms: number): Promise<void>;
}

export interface RequestGate {
  /** Resolves when this process may send one request. */
  acquire(): Promise<void>;
  /** Holds every process back for the time the target asked for. */
  pause(ms: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Without a rate cap, the shared pause is read at most this often per process (a round trip saved per request). */
const PAUSE_CHECK_MS = 100;

export function createRequestGate(backend: GateBackend, maxRps: number): RequestGate {
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
        const { pauseWaitMs, slotWaitMs } = await backend.acquire(interval);
        checkedAt = Date.now();
        pausedUntil = Math.max(pausedUntil, checkedAt + pauseWaitMs);
        if (pauseWaitMs > 0) {
          await sleep(pauseWaitMs);
          continue;
        }
        if (slotWaitMs > 0) await sleep(slotWaitMs);
        return;
      }
    },
    async pause(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
      await backend.pause(Math.ceil(ms));
    },
  };
}

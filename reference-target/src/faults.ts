/**
 * The faults the reference target can script, and the decision for each SCIM request. All random
 * choices come from one seeded generator, drawn in request-arrival order, so a sequential client
 * sees the same faults on every run with the same seed.
 */

export interface LatencyFault {
  ms: number;
  /** Each request waits `ms` plus a uniform random extra in [0, jitterMs). */
  jitterMs?: number;
}

export interface RateLimitFault {
  /** Requests accepted in any sliding one-second window; beyond that 429. */
  rps: number;
  retryAfterSeconds?: number;
}

export interface ErrorRateFault {
  /** Share of SCIM requests, 0 to 1, answered with `status` before they do anything. */
  fraction: number;
  status: 500 | 502 | 503;
  retryAfterSeconds?: number;
}

export type OutageMode = 'refuse' | '503';

export interface OutageFault {
  /** `refuse`: the port stops listening and open connections drop. `503`: every SCIM request gets 503. */
  mode: OutageMode;
  /** Sent as Retry-After with `503`. */
  retryAfterSeconds?: number;
}

export interface FaultSettings {
  latency?: LatencyFault;
  rateLimit?: RateLimitFault;
  errorRate?: ErrorRateFault;
  outage?: OutageFault;
  /** PATCH answers 501 and ServiceProviderConfig says patch.supported: false. */
  patchUnsupported?: boolean;
  /** Share of writes (POST, PUT, PATCH, DELETE) that are applied but answered 502. */
  lostResponseFraction?: number;
}

export type FaultName = 'outage' | 'rate-limit' | 'error-rate' | 'lost-response' | 'patch-unsupported';

interface Rejection {
  status: number;
  detail: string;
  retryAfterSeconds?: number;
  fault: FaultName;
}

export type FaultDecision =
  | { action: 'pass'; delayMs: number; loseResponse: boolean }
  | ({ action: 'reject'; delayMs: number } & Rejection);

const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WINDOW_MS = 1000;

/** mulberry32: a small, fast 32-bit PRNG; good enough to script faults, not for secrets. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultPlan {
  private current: FaultSettings = {};
  private random: () => number;
  /** Arrival times of the requests the rate limit let through, oldest first. */
  private accepted: number[] = [];

  constructor(seed: number = Math.floor(Math.random() * 2 ** 32)) {
    this.random = mulberry32(seed);
  }

  reseed(seed: number): void {
    this.random = mulberry32(seed);
  }

  settings(): FaultSettings {
    return structuredClone(this.current);
  }

  /** Replaces every setting; `{}` clears all faults. */
  replace(settings: FaultSettings): void {
    this.current = structuredClone(settings);
    this.accepted = [];
  }

  /** Sets one fault; undefined switches it off. */
  set<K extends keyof FaultSettings>(key: K, value: FaultSettings[K] | undefined): void {
    const next: FaultSettings = { ...this.current };
    if (value === undefined) delete next[key];
    else next[key] = structuredClone(value);
    this.current = next;
    if (key === 'rateLimit') this.accepted = [];
  }

  get patchSupported(): boolean {
    return this.current.patchUnsupported !== true;
  }

  /** What happens to a SCIM request arriving at `now` (ms epoch). */
  decide(method: string, now: number): FaultDecision {
    const delayMs = this.delay();
    const rejection = this.rejection(now);
    if (rejection !== undefined) return { action: 'reject', delayMs, ...rejection };
    return { action: 'pass', delayMs, loseResponse: this.losesResponse(method) };
  }

  private delay(): number {
    const { latency } = this.current;
    if (latency === undefined) return 0;
    const jitter =
      latency.jitterMs !== undefined && latency.jitterMs > 0 ? this.random() * latency.jitterMs : 0;
    return Math.round(latency.ms + jitter);
  }

  private rejection(now: number): Rejection | undefined {
    const { outage, rateLimit, errorRate } = this.current;
    if (outage !== undefined) {
      const detail = 'Service unavailable (scripted outage)';
      return { status: 503, detail, fault: 'outage', ...retryAfter(outage.retryAfterSeconds) };
    }
    if (rateLimit !== undefined && !this.admit(rateLimit, now)) {
      const detail = `Too many requests: at most ${rateLimit.rps} per second`;
      return {
        status: 429,
        detail,
        fault: 'rate-limit',
        retryAfterSeconds: rateLimit.retryAfterSeconds ?? 1,
      };
    }
    if (errorRate !== undefined && this.random() < errorRate.fraction) {
      const detail = `Scripted server error (${errorRate.status})`;
      return {
        status: errorRate.status,
        detail,
        fault: 'error-rate',
        ...retryAfter(errorRate.retryAfterSeconds),
      };
    }
    return undefined;
  }

  private losesResponse(method: string): boolean {
    const fraction = this.current.lostResponseFraction ?? 0;
    return WRITE_METHODS.has(method) && fraction > 0 && this.random() < fraction;
  }

  private admit(limit: RateLimitFault, now: number): boolean {
    const horizon = now - WINDOW_MS;
    let expired = 0;
    while (expired < this.accepted.length && (this.accepted[expired] ?? now) <= horizon) expired += 1;
    if (expired > 0) this.accepted = this.accepted.slice(expired);
    if (this.accepted.length >= limit.rps) return false;
    this.accepted.push(now);
    return true;
  }
}

function retryAfter(seconds: number | undefined): { retryAfterSeconds?: number } {
  return seconds === undefined ? {} : { retryAfterSeconds: seconds };
}

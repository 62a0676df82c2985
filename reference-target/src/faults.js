/**
 * The faults the reference target can script, and the decision for each SCIM request. All random
 * choices come from one seeded generator, drawn in request-arrival order, so a sequential client
 * sees the same faults on every run with the same seed.
 */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WINDOW_MS = 1000;
/** mulberry32: a small, fast 32-bit PRNG; good enough to script faults, not for secrets. */
export function mulberry32(seed) {
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
    current = {};
    random;
    /** Arrival times of the requests the rate limit let through, oldest first. */
    accepted = [];
    constructor(seed = Math.floor(Math.random() * 2 ** 32)) {
        this.random = mulberry32(seed);
    }
    reseed(seed) {
        this.random = mulberry32(seed);
    }
    settings() {
        return structuredClone(this.current);
    }
    /** Replaces every setting; `{}` clears all faults. */
    replace(settings) {
        this.current = structuredClone(settings);
        this.accepted = [];
    }
    /** Sets one fault; undefined switches it off. */
    set(key, value) {
        const next = { ...this.current };
        if (value === undefined)
            delete next[key];
        else
            next[key] = structuredClone(value);
        this.current = next;
        if (key === 'rateLimit')
            this.accepted = [];
    }
    get patchSupported() {
        return this.current.patchUnsupported !== true;
    }
    /** What happens to a SCIM request arriving at `now` (ms epoch). */
    decide(method, now) {
        const delayMs = this.delay();
        const rejection = this.rejection(now);
        if (rejection !== undefined)
            return { action: 'reject', delayMs, ...rejection };
        return { action: 'pass', delayMs, loseResponse: this.losesResponse(method) };
    }
    delay() {
        const { latency } = this.current;
        if (latency === undefined)
            return 0;
        const jitter = latency.jitterMs !== undefined && latency.jitterMs > 0 ? this.random() * latency.jitterMs : 0;
        return Math.round(latency.ms + jitter);
    }
    rejection(now) {
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
    losesResponse(method) {
        const fraction = this.current.lostResponseFraction ?? 0;
        return WRITE_METHODS.has(method) && fraction > 0 && this.random() < fraction;
    }
    admit(limit, now) {
        const horizon = now - WINDOW_MS;
        let expired = 0;
        while (expired < this.accepted.length && (this.accepted[expired] ?? now) <= horizon)
            expired += 1;
        if (expired > 0)
            this.accepted = this.accepted.slice(expired);
        if (this.accepted.length >= limit.rps)
            return false;
        this.accepted.push(now);
        return true;
    }
}
function retryAfter(seconds) {
    return seconds === undefined ? {} : { retryAfterSeconds: seconds };
}
//# sourceMappingURL=faults.js.map
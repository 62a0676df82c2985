/**
 * The one retry policy of the APIs inputs read. Its defaults, in one place (undici's retry handler
 * keeps its own the same way): what is tried again, how often, and how long the waits may add up to.
 *
 * - A throttled answer (429, or what a vendor's rules call throttling: Google's 403
 *   `userRateLimitExceeded`) was not processed: it is waited out for as long as the server asks
 *   (`Retry-After`, or the vendor's own header) without spending an attempt, `throttleWaits` times.
 *   Safe for every method.
 * - A transient failure (500/502/503/504, a network error, a timeout) is tried again with
 *   exponential back-off and full jitter (a random wait between 0 and base × 2^(n-1), capped), or
 *   after `Retry-After` when the answer gives one; only for idempotent requests (GET, or a request
 *   its caller declares safe to repeat, as a token request is): a POST is never retried blindly.
 * - A vendor that throttles without saying how long to wait (Google's 403 `userRateLimitExceeded`
 *   has no `Retry-After`) asks for `throttleBackoff`: its throttled answers are then waited out
 *   with exponential back-off and jitter — half of `defaultThrottleWaitMs` × 2^n plus a random part
 *   up to the other half, capped at `maxDelayMs` — as Google's limits page prescribes ("1 second +
 *   random_number_milliseconds, 2 seconds + …"), instead of one fixed wait that many clients would
 *   share.
 * - Every wait of one request counts against `maxTotalWaitMs`: a wait that would pass it is not
 *   waited, and the request fails with the wait the server asked for as `retryAfterMs`.
 */

export interface RetryPolicy {
  /** Attempts in all for a transient failure (the first included). */
  maxAttempts: number;
  /** Back-off base: the wait before attempt n+1 is random in [0, min(maxDelayMs, base × 2^(n-1))]. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** All waits of one request together: back-offs and throttling. */
  maxTotalWaitMs: number;
  /** Throttled answers waited out per request, without spending an attempt. */
  throttleWaits: number;
  /** The wait of a throttled answer that does not say how long (with `throttleBackoff`: the first one). */
  defaultThrottleWaitMs: number;
  /** Throttled answers that do not say how long are waited out with growing, jittered waits. */
  throttleBackoff: boolean;
  /** The longest wait a server can ask for: a longer `Retry-After` is taken as this. */
  maxRetryAfterMs: number;
  /** Statuses that are transient failures. */
  statusCodes: readonly number[];
  /** Network error codes (node's and undici's) that are transient failures. */
  errorCodes: readonly string[];
}

export const RETRY_DEFAULTS: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxTotalWaitMs: 60_000,
  throttleWaits: 3,
  defaultThrottleWaitMs: 5_000,
  throttleBackoff: false,
  maxRetryAfterMs: 15 * 60_000,
  statusCodes: [500, 502, 503, 504],
  errorCodes: [
    'ECONNRESET',
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ENETDOWN',
    'ENETUNREACH',
    'EHOSTDOWN',
    'EHOSTUNREACH',
    'EPIPE',
    'ETIMEDOUT',
    'UND_ERR_SOCKET',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
  ],
});

/** Where one request stands in its retries. */
export interface RetryState {
  /** Attempts made so far that counted (throttled answers and a re-authorisation do not). */
  attempts: number;
  throttles: number;
  waitedMs: number;
}

export type Failure = 'throttled' | 'transient';

/**
 * How long to wait before trying again, or undefined to give up. `askedMs` is what the server asked
 * for (Retry-After, or a vendor header), already read; the state is updated when a wait is given.
 */
export function waitBeforeRetry(
  policy: RetryPolicy,
  state: RetryState,
  failure: Failure,
  options: { askedMs: number | undefined; idempotent: boolean; random?: () => number },
): number | undefined {
  const asked = options.askedMs === undefined ? undefined : Math.min(options.askedMs, policy.maxRetryAfterMs);
  if (failure === 'throttled') {
    if (state.throttles >= policy.throttleWaits) return undefined;
    const waitMs = spend(policy, state, asked ?? throttleWaitMs(policy, state.throttles, options.random));
    if (waitMs !== undefined) state.throttles++;
    return waitMs;
  }
  if (!options.idempotent || state.attempts >= policy.maxAttempts) return undefined;
  return spend(policy, state, asked ?? backoffMs(policy, state.attempts, options.random));
}

/** The asked-for wait, capped: what a failed request reports as `retryAfterMs`. */
export function reportedWait(policy: RetryPolicy, askedMs: number | undefined): number | undefined {
  return askedMs === undefined ? undefined : Math.min(askedMs, policy.maxRetryAfterMs);
}

/** Full jitter (a uniformly random wait up to the exponential bound): retries of many clients spread. */
export function backoffMs(policy: RetryPolicy, attempts: number, random: () => number = Math.random): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(attempts - 1, 0));
  return Math.round(random() * bound);
}

/** The wait of the n-th throttled answer (from 0) that does not say how long. */
export function throttleWaitMs(policy: RetryPolicy, throttles: number, random: () => number = Math.random) {
  if (!policy.throttleBackoff) return policy.defaultThrottleWaitMs;
  const bound = Math.min(policy.maxDelayMs, policy.defaultThrottleWaitMs * 2 ** throttles);
  return Math.round(bound / 2 + (random() * bound) / 2);
}

/** The wait, counted against the total, or undefined when the total would pass its bound. */
function spend(policy: RetryPolicy, state: RetryState, waitMs: number): number | undefined {
  if (state.waitedMs + waitMs > policy.maxTotalWaitMs) return undefined;
  state.waitedMs += waitMs;
  return waitMs;
}

import { ApiClient } from '../../api-client/api-client.js';
import type { ApiMetrics } from '../../api-client/api-metrics.js';
import { sswsAuth } from '../../api-client/auth/auth-strategy.js';
import type { RetryPolicy } from '../../api-client/retry-policy.js';
import { OktaRateLimits } from './okta-rate-limit.js';

/**
 * Okta's management API through the API client (src/api-client/): `Authorization: SSWS <API
 * token>` (the token read at each request), requests only to the org's origin, each waiting first
 * while its endpoint's bucket is known to be spent (okta-rate-limit.ts, the client's pacer). A 429
 * is waited out until `X-Rate-Limit-Reset` (measured against the answer's `Date`), as the client's
 * throttling; 5xx answers and network errors are retried with back-off. After the retries: 429 →
 * `rate_limited` (side `source`) with `retryAfterMs` to the reset, 401/403 →
 * `source_unauthorized`, 5xx and network errors → `source_unavailable`, other 4xx →
 * `source_invalid` with the status and Okta's `errorSummary` as `detail`.
 */

export interface OktaHttpSettings {
  timeoutMs: number;
  connections: number;
  /** Wait when a 429 has no usable X-Rate-Limit-Reset. */
  defaultRateLimitWaitMs: number;
  /** Longest wait a reset may impose. */
  maxRateLimitWaitMs: number;
  /** Longest a request waits in place for a spent bucket before failing `rate_limited`. */
  maxInlineWaitMs: number;
}

/** 429s waited out per request of a list read before it fails `rate_limited`. */
export const RATE_LIMIT_WAITS = 3;

export function oktaHttp(
  orgUrl: string,
  token: () => string,
  settings: OktaHttpSettings,
  metrics?: ApiMetrics,
): ApiClient {
  const limits = new OktaRateLimits({
    defaultWaitMs: settings.defaultRateLimitWaitMs,
    maxWaitMs: settings.maxRateLimitWaitMs,
    maxInlineWaitMs: settings.maxInlineWaitMs,
  });
  const retry: Partial<RetryPolicy> = {
    throttleWaits: RATE_LIMIT_WAITS,
    defaultThrottleWaitMs: settings.defaultRateLimitWaitMs,
    maxRetryAfterMs: settings.maxRateLimitWaitMs,
    // As long as a spent bucket may hold one request, once per 429 waited out.
    maxTotalWaitMs: settings.maxInlineWaitMs * RATE_LIMIT_WAITS,
  };
  return new ApiClient({
    label: `Okta's API at ${new URL(orgUrl).origin}`,
    input: 'okta',
    baseUrl: orgUrl,
    auth: sswsAuth(token),
    timeoutMs: settings.timeoutMs,
    connections: settings.connections,
    retry,
    pacer: limits,
    vendor: { throttleWaitMs: (answer) => limits.resetWaitMs(answer.headers) },
    ...(metrics ? { metrics } : {}),
  });
}

import { abortableWait } from '../../api-client/abortable-wait.js';
import type { Headers } from '../../api-client/answer.js';
import type { Pacer } from '../../api-client/pacer.js';
import { BridgeError } from '../../domain/errors.js';

/**
 * Okta's rate limits, as the client sees them (developer.okta.com, Rate limits): each endpoint
 * counts against a bucket of its own, and every answer says how the bucket stands —
 * `X-Rate-Limit-Remaining` requests until `X-Rate-Limit-Reset` (UTC epoch seconds). A bucket seen
 * at 0 remaining is left alone until its reset: the next request in it waits (bounded), instead of
 * drawing a 429. Times are measured against the answer's own `Date`, so a skewed clock does not
 * matter. The state is per process: several processes may still meet a 429, which waits the same way.
 * It is the API client's pacer (src/api-client/pacer.ts) for Okta, and its reading of
 * `X-Rate-Limit-Reset` is how long the client waits out a 429 (okta-http.ts).
 */

export interface RateLimitSettings {
  /** Wait when a 429 says nothing usable of its reset. */
  defaultWaitMs: number;
  /** Longest wait Okta's reset can impose (a reset further away is taken as this). */
  maxWaitMs: number;
  /** Longest a request waits in place; beyond it, it fails `rate_limited` (the caller decides). */
  maxInlineWaitMs: number;
}

export class OktaRateLimits implements Pacer {
  /** Bucket → when it refills (local ms), for buckets seen exhausted. */
  private readonly exhausted = new Map<string, number>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits until the bucket of `path` may be used again; `rate_limited` past the bound. */
  async before(path: string, signal?: AbortSignal): Promise<void> {
    const bucket = bucketOf(path);
    const resetAt = this.exhausted.get(bucket);
    if (resetAt === undefined) return;
    const waitMs = resetAt - this.now();
    if (waitMs > this.settings.maxInlineWaitMs) {
      throw new BridgeError('rate_limited', `Okta's rate limit for ${bucket} is spent`, {
        side: 'source',
        retryAfterMs: waitMs,
      });
    }
    if (waitMs > 0) await abortableWait(waitMs, signal);
    if (this.exhausted.get(bucket) === resetAt) this.exhausted.delete(bucket);
  }

  /** Notes how the bucket of `path` stands after an answer (429 included). */
  after(path: string, { status, headers }: { status: number; headers: Headers }): void {
    const bucket = bucketOf(path);
    const remaining = Number(first(headers['x-rate-limit-remaining']));
    if (status !== 429 && !(Number.isFinite(remaining) && remaining <= 0)) return;
    this.exhausted.set(bucket, this.now() + this.waitFor(headers));
  }

  /** How long until the bucket of an answer refills (ms, at least a second, at most the bound). */
  waitFor(headers: Headers): number {
    return this.resetWaitMs(headers) ?? this.settings.defaultWaitMs;
  }

  /** The wait to `X-Rate-Limit-Reset`, measured against the answer's `Date`; undefined without one. */
  resetWaitMs(headers: Headers): number | undefined {
    const reset = Number(first(headers['x-rate-limit-reset']));
    if (!Number.isFinite(reset) || reset <= 0) return undefined;
    const serverNow = Date.parse(first(headers.date) ?? '');
    const now = Number.isNaN(serverNow) ? Date.now() : serverNow;
    return Math.min(Math.max(reset * 1000 - now, 1000), this.settings.maxWaitMs);
  }
}

/**
 * The bucket of a request: its path with the id after `users/` or `groups/` replaced, so that
 * `/api/v1/users/{id}` is one bucket whatever the id (Okta counts per endpoint, not per resource).
 */
export function bucketOf(path: string): string {
  const parts = path.split('?')[0]?.split('/') ?? [];
  return parts
    .map((part, i) => (i > 0 && /^(users|groups)$/.test(parts[i - 1] ?? '') ? '{id}' : part))
    .join('/');
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

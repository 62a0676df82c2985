import type { Answer } from './answer.js';

/**
 * A vendor's own pacing around each request, by route (the path): Okta's per-endpoint buckets
 * (src/sources/okta/okta-rate-limit.ts) wait before a request while its bucket is known to be spent,
 * and note after each answer how the bucket stands. `before` may throw (e.g. `rate_limited` when
 * the wait would be too long to hold the request).
 */
export interface Pacer {
  before(route: string, signal?: AbortSignal): Promise<void>;
  after(route: string, answer: Pick<Answer, 'status' | 'headers'>): void;
}

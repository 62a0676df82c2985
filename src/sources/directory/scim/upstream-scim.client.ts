import { ApiClient } from '../../../api-client/api-client.js';
import type { ApiMetrics } from '../../../api-client/api-metrics.js';
import { bearerAuth } from '../../../api-client/auth/auth-strategy.js';
import type { RetryPolicy } from '../../../api-client/retry-policy.js';
import { scimPages } from '../../../api-client/paging/scim-pages.js';

/**
 * Reads every resource of an upstream SCIM 2.0 server, page by page, through the API client
 * (src/api-client/): `Authorization: Bearer <token>` (read at each request), requests only to the
 * server's origin, `startIndex` paging with its guards (paging/scim-pages.ts: a server that ignores
 * `startIndex`, an empty first page that claims resources). Network errors, 429 and 5xx are retried
 * (a `Retry-After` in either form honoured, as an HTTP date measured against the answer's `Date`);
 * a refused token is `source_unauthorized`.
 */

/** Retries of one page read: this source's own over the API client's defaults. */
export const PAGE_RETRY: Partial<RetryPolicy> = {
  maxAttempts: 5,
  maxRetryAfterMs: 30_000,
  maxTotalWaitMs: 60_000,
};

export interface UpstreamScimOptions {
  /** The SCIM base URL, e.g. https://idp.example.com/scim/v2. */
  url: string;
  token: () => string;
  pageSize: number;
  timeoutMs: number;
  /** scim_bridge_source_requests_total and _duration_seconds, under `input`. */
  metrics?: ApiMetrics;
  /** The input the requests are counted under; `directory` by default. */
  input?: string;
}

export type ScimResourceType = 'Users' | 'Groups';

export class UpstreamScimClient {
  private readonly http: ApiClient;

  constructor(private readonly options: UpstreamScimOptions) {
    this.http = new ApiClient({
      label: `the upstream SCIM server ${upstreamLabel(options.url)}`,
      input: options.input ?? 'directory',
      baseUrl: options.url,
      auth: bearerAuth(options.token),
      accept: 'application/scim+json, application/json',
      timeoutMs: options.timeoutMs,
      retry: PAGE_RETRY,
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
  }

  pages(type: ScimResourceType, signal?: AbortSignal): AsyncGenerator<unknown[], void, undefined> {
    return scimPages(this.http, type, { count: this.options.pageSize, ...(signal ? { signal } : {}) });
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** Where the upstream is, for messages: no credentials, no query. */
export function upstreamLabel(base: string): string {
  const url = new URL(base);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

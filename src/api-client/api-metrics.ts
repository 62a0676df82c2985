/**
 * What the API client records of each request it sends, as a port: src/ops/metrics.ts implements it
 * with `scim_bridge_source_requests_total{input,status}` and
 * `scim_bridge_source_request_duration_seconds{input}`. Label values stay bounded: the input's name
 * and an HTTP status (or `network-error`), never a URL, a route with ids, or a query.
 */
export interface ApiMetrics {
  readonly sourceRequests: { inc(labels: { input: string; status: string }): void };
  readonly sourceRequestDuration: { observe(labels: { input: string }, seconds: number): void };
}

/** For a client nobody measures (a command run once, a test that looks at something else). */
export const NO_METRICS: ApiMetrics = {
  sourceRequests: { inc: () => undefined },
  sourceRequestDuration: { observe: () => undefined },
};

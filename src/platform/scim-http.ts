import { Agent, request } from 'undici';
import { BridgeError } from '../domain/errors.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import { ConcurrencyLimit } from '../api-client/concurrency-limit.js';
import type { RequestGate } from './request-gate.js';
import { errorFromResponse, networkError } from './platform-errors.js';

/**
 * Retry defaults, in one place. Waiting on 429 (and 503 with Retry-After) is safe for every method:
 * the platform did not process the request. Other failures of writes are never retried here — the
 * reconcile job re-reads the state and decides again. Reads retry a little on 5xx and network errors
 * so that one bad page does not fail a whole listing.
 */
export const RETRY_DEFAULTS = {
  rateLimitedAttempts: 5,
  defaultRetryAfterMs: 1000,
  maxRetryAfterMs: 300_000,
  readAttempts: 3,
  readBackoffMs: 200,
} as const;

export interface RequestTrace {
  /** Requests sent, by method. */
  counts: Record<string, number>;
  /** What was sent and what came back, for the identity's history. */
  requests: {
    method: string;
    path: string;
    status: number | 'network-error';
    durationMs: number;
    sentAt: number;
  }[];
}

export function newTrace(): RequestTrace {
  return { counts: {}, requests: [] };
}

export interface ScimHttpOptions {
  /** TARGET_URL; requests go to {baseUrl}/api/scim/v2{path}. */
  baseUrl: string;
  token: () => string;
  concurrency: number;
  timeoutMs: number;
  gate: RequestGate;
  metrics: Metrics;
  logger: Logger;
}

export interface ScimResponse {
  status: number;
  body: unknown;
}

export interface SendOptions {
  body?: unknown;
  /** Normalised route for metrics and logs, e.g. /Users/:id. */
  route: string;
  trace?: RequestTrace;
}

const IDEMPOTENT_READS = new Set(['GET']);

export class ScimHttp {
  private readonly agent: Agent;
  private readonly limit: ConcurrencyLimit;
  private readonly base: URL;

  constructor(private readonly options: ScimHttpOptions) {
    this.base = new URL(options.baseUrl.replace(/\/+$/, '') + '/api/scim/v2');
    this.agent = new Agent({ connections: options.concurrency, keepAliveTimeout: 30_000, pipelining: 1 });
    this.limit = new ConcurrencyLimit(options.concurrency);
  }

  get inFlight(): number {
    return this.limit.inFlight;
  }

  async send(method: string, path: string, options: SendOptions): Promise<ScimResponse> {
    let rateLimited = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await this.limit.run(() => this.once(method, path, options));
        if (response.status < 400) return response;
        throw errorFromResponse(method, options.route, { ...response, headers: response.headers });
      } catch (error) {
        if (!(error instanceof BridgeError)) throw error;
        if (isAskedToWait(error)) rateLimited++;
        const wait = this.waitBeforeRetry(method, error, attempt, rateLimited);
        if (wait === undefined) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** How long to wait before trying again, or undefined to give up and throw. */
  private waitBeforeRetry(
    method: string,
    error: BridgeError,
    attempt: number,
    rateLimited: number,
  ): number | undefined {
    if (isAskedToWait(error)) {
      if (rateLimited >= RETRY_DEFAULTS.rateLimitedAttempts) return undefined;
      const ms = Math.min(
        error.retryAfterMs ?? RETRY_DEFAULTS.defaultRetryAfterMs,
        RETRY_DEFAULTS.maxRetryAfterMs,
      );
      void this.options.gate.pause(ms).catch(() => undefined);
      return 0; // the gate holds this and every other request until the pause ends
    }
    if (IDEMPOTENT_READS.has(method) && error.retryable && attempt < RETRY_DEFAULTS.readAttempts) {
      return RETRY_DEFAULTS.readBackoffMs * 2 ** (attempt - 1) * (0.5 + Math.random());
    }
    return undefined;
  }

  private async once(
    method: string,
    path: string,
    options: SendOptions,
  ): Promise<ScimResponse & { headers: Record<string, string | string[] | undefined> }> {
    await this.options.gate.acquire();
    const url = new URL(this.base.pathname + path, this.base);
    const started = performance.now();
    const { metrics } = this.options;
    const record = (status: number | 'network-error') => {
      const durationMs = Math.round(performance.now() - started);
      metrics.targetRequests.inc({ method, route: options.route, status: String(status) });
      metrics.targetRequestDuration.observe({ method, route: options.route }, durationMs / 1000);
      if (options.trace) {
        options.trace.counts[method] = (options.trace.counts[method] ?? 0) + 1;
        const sentAt = Date.now() - durationMs;
        options.trace.requests.push({ method, path: options.route, status, durationMs, sentAt });
      }
      return durationMs;
    };
    try {
      const response = await request(url, {
        method: method as 'GET',
        dispatcher: this.agent,
        headers: {
          authorization: `Bearer ${this.options.token()}`,
          accept: 'application/scim+json, application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      const text = await response.body.text();
      const durationMs = record(response.statusCode);
      this.options.logger.debug(
        { method, route: options.route, status: response.statusCode, durationMs },
        'target request',
      );
      return { status: response.statusCode, headers: response.headers, body: parseBody(text) };
    } catch (error) {
      record('network-error');
      throw networkError(method, options.route, error);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** 429, or 503 with Retry-After: the platform did not process the request and said when to return. */
function isAskedToWait(error: BridgeError): boolean {
  return (
    error.code === 'target_rate_limited' ||
    (error.code === 'target_unavailable' && error.retryAfterMs !== undefined)
  );
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

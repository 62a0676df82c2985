import { Agent, request } from 'undici';
import { abortableWait } from './abortable-wait.js';
import { readAnswer, routeOf, type Answer } from './answer.js';
import { answerError, errorCode, networkError, notJsonError, type ApiDescription } from './api-errors.js';
import { NO_METRICS, type ApiMetrics } from './api-metrics.js';
import type { AuthStrategy } from './auth/auth-strategy.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { baseUrl, linkOnOrigin, urlOnOrigin } from './on-origin.js';
import type { Pacer } from './pacer.js';
import type { RequestBudget } from './request-budget.js';
import { retryAfterMs } from './retry-after.js';
import {
  RETRY_DEFAULTS,
  reportedWait,
  waitBeforeRetry,
  type RetryPolicy,
  type RetryState,
} from './retry-policy.js';
import { kindOf, type AnswerKind, type VendorRules } from './vendor-rules.js';

/**
 * A client of one HTTP API an input reads (Okta's, an upstream SCIM server, Microsoft Graph,
 * Google's Admin SDK, a token endpoint): one undici Agent, requests only to the configured origin
 * (on-origin.ts), the credential from an auth strategy (auth/), the one retry policy
 * (retry-policy.ts) with the vendor's rules (vendor-rules.ts), an optional pacer and per-minute
 * budget, at most `connections` requests in flight, every wait abortable, and a request counted and
 * timed per input (api-metrics.ts). Answers that are not final are retried here; a final one that
 * is not 2xx becomes one BridgeError (api-errors.ts).
 */

export interface ApiClientOptions {
  /** The API as messages name it, a noun phrase: "Okta's API at https://acme.okta.com". */
  label: string;
  /** The input the requests are counted under (a bounded metrics label: `okta`, `directory`). */
  input: string;
  /** Requests go to paths under this URL, and only to its origin. */
  baseUrl: string;
  /** The client owns it: `close()` closes it too. */
  auth?: AuthStrategy;
  /** The `Accept` of every request; JSON by default. */
  accept?: string;
  /** Per request: until the answer's headers, then between two chunks of its body. */
  timeoutMs?: number;
  /** Connections of the agent, and requests in flight at most. */
  connections?: number;
  retry?: Partial<RetryPolicy>;
  vendor?: VendorRules;
  pacer?: Pacer;
  budget?: RequestBudget;
  metrics?: ApiMetrics;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** This request's own retry settings over the client's (e.g. `throttleWaits: 0`: fail fast on a 429). */
  retry?: Partial<RetryPolicy>;
}

export const CLIENT_DEFAULTS = { timeoutMs: 30_000, connections: 4, accept: 'application/json' } as const;

interface Exchange extends RequestOptions {
  form?: Record<string, string>;
  idempotent: boolean;
}

type Sent = { answer: Answer; authorization: string | undefined } | { error: unknown };

interface Final {
  answer: Answer;
  kind: AnswerKind;
  waitMs?: number;
}

export class ApiClient {
  readonly base: URL;
  private readonly agent: Agent;
  private readonly limit: ConcurrencyLimit;
  private readonly api: ApiDescription;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(private readonly options: ApiClientOptions) {
    this.base = baseUrl(options.baseUrl);
    const connections = options.connections ?? CLIENT_DEFAULTS.connections;
    this.agent = new Agent({ connections, keepAliveTimeout: 30_000 });
    this.limit = new ConcurrencyLimit(connections);
    this.api = { label: options.label, rules: options.vendor ?? {} };
    this.policy = { ...RETRY_DEFAULTS, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs;
  }

  get label(): string {
    return this.options.label;
  }

  /** A path under the base, or a URL that must be on its origin (`source_invalid` otherwise). */
  url(pathOrUrl: string | URL): URL {
    return urlOnOrigin(this.base, pathOrUrl, this.options.label);
  }

  /** A link an answer gave (a next page), resolved against it and held to the origin. */
  link(link: string, answer: Answer): URL {
    return linkOnOrigin(link, answer.url, this.base, this.options.label);
  }

  /** GETs JSON; every answer but a 2xx JSON one is a BridgeError. */
  async getJson(pathOrUrl: string | URL, options: RequestOptions = {}): Promise<Answer> {
    return (await this.json('GET', this.url(pathOrUrl), { ...options, idempotent: true }, false)) as Answer;
  }

  /** GETs JSON; undefined when the API answers 404 or 410 (gone). */
  async findJson(pathOrUrl: string | URL, options: RequestOptions = {}): Promise<Answer | undefined> {
    return this.json('GET', this.url(pathOrUrl), { ...options, idempotent: true }, true);
  }

  /**
   * POSTs a form (`application/x-www-form-urlencoded`) and reads JSON back. Retried on a 5xx or a
   * network error only when the caller declares it `idempotent` (a token request is: it changes
   * nothing); a throttled answer is waited out whatever the method (it was not processed).
   */
  async postForm(
    pathOrUrl: string | URL,
    form: Record<string, string>,
    options: RequestOptions & { idempotent?: boolean } = {},
  ): Promise<Answer> {
    const exchange = { ...options, form, idempotent: options.idempotent === true };
    return (await this.json('POST', this.url(pathOrUrl), exchange, false)) as Answer;
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.options.auth?.close?.()]);
  }

  private async json(method: string, url: URL, exchange: Exchange, absentOk: boolean) {
    const { answer, kind, waitMs } = await this.exchange(method, url, exchange);
    if (kind === 'ok') {
      if (!answer.isJson) throw notJsonError(this.api, method, answer);
      return answer;
    }
    if (kind === 'absent' && absentOk) return undefined;
    throw answerError(this.api, method, answer, kind, waitMs);
  }

  /** Sends until the answer is final: throttling waited out, transient failures retried, one re-authorisation. */
  private async exchange(method: string, url: URL, exchange: Exchange): Promise<Final> {
    const policy = exchange.retry ? { ...this.policy, ...exchange.retry } : this.policy;
    const state: RetryState = { attempts: 0, throttles: 0, waitedMs: 0 };
    let reauthorized = false;
    for (;;) {
      const sent = await this.attempt(method, url, exchange);
      if ('error' in sent) {
        state.attempts++;
        await this.afterNetworkError(policy, state, method, url, exchange, sent.error);
        continue;
      }
      // A 401 to a credential the strategy can renew is tried once more before it counts.
      if (sent.answer.status === 401 && sent.authorization !== undefined && !reauthorized) {
        reauthorized = true;
        if (this.options.auth?.refused(sent.authorization) === true) continue;
      }
      const step = this.nextStep(policy, state, exchange, sent.answer);
      if ('final' in step) return step.final;
      await abortableWait(step.waitMs, exchange.signal);
    }
  }

  /** An answer's outcome: final, or a wait before trying again (the policy's state updated). */
  private nextStep(
    policy: RetryPolicy,
    state: RetryState,
    exchange: Exchange,
    answer: Answer,
  ): { final: Final } | { waitMs: number } {
    const kind = kindOf(answer, policy, this.api.rules);
    if (kind !== 'throttled' && kind !== 'transient') return { final: { answer, kind } };
    if (kind === 'transient') state.attempts++;
    const askedMs = this.askedWait(answer, kind);
    const waitMs = waitBeforeRetry(policy, state, kind, { askedMs, idempotent: exchange.idempotent });
    if (waitMs !== undefined) return { waitMs };
    const reported = reportedWait(
      policy,
      kind === 'throttled' ? (askedMs ?? policy.defaultThrottleWaitMs) : askedMs,
    );
    return { final: { answer, kind, ...(reported === undefined ? {} : { waitMs: reported }) } };
  }

  /** Waits before trying again after a network error, or throws `source_unavailable`. */
  private async afterNetworkError(
    policy: RetryPolicy,
    state: RetryState,
    method: string,
    url: URL,
    exchange: Exchange,
    error: unknown,
  ): Promise<void> {
    const transient = policy.errorCodes.includes(errorCode(error) ?? '');
    const idempotent = exchange.idempotent;
    const waitMs = transient
      ? waitBeforeRetry(policy, state, 'transient', { askedMs: undefined, idempotent })
      : undefined;
    if (waitMs === undefined) throw networkError(this.api, method, url, error);
    await abortableWait(waitMs, exchange.signal);
  }

  private askedWait(answer: Answer, kind: 'throttled' | 'transient'): number | undefined {
    const own = kind === 'throttled' ? this.api.rules.throttleWaitMs?.(answer) : undefined;
    return own ?? retryAfterMs(answer.headers);
  }

  /** One request: the budget, the pacer, the credential, then a place among those in flight. */
  private async attempt(method: string, url: URL, exchange: Exchange): Promise<Sent> {
    const { signal } = exchange;
    await this.options.budget?.take(signal);
    await this.options.pacer?.before(routeOf(url), signal);
    const authorization = await this.options.auth?.authorization(signal);
    return this.limit.run(() => this.send(method, url, exchange, authorization), signal);
  }

  private async send(method: string, url: URL, exchange: Exchange, authorization?: string): Promise<Sent> {
    const started = performance.now();
    try {
      const response = await request(url, {
        method: method as 'GET',
        dispatcher: this.agent,
        headers: {
          accept: this.options.accept ?? CLIENT_DEFAULTS.accept,
          ...(authorization === undefined ? {} : { authorization }),
          ...(exchange.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: exchange.form ? new URLSearchParams(exchange.form).toString() : null,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: exchange.signal ?? null,
      });
      const text = await response.body.text();
      this.record(String(response.statusCode), started);
      const answer = readAnswer(response.statusCode, response.headers, url, text);
      this.options.pacer?.after(routeOf(url), answer);
      return { answer, authorization };
    } catch (error) {
      if (exchange.signal?.aborted === true) throw exchange.signal.reason;
      this.record('network-error', started);
      return { error };
    }
  }

  private record(status: string, started: number): void {
    const metrics = this.options.metrics ?? NO_METRICS;
    const input = this.options.input;
    metrics.sourceRequests.inc({ input, status });
    metrics.sourceRequestDuration.observe({ input }, (performance.now() - started) / 1000);
  }
}

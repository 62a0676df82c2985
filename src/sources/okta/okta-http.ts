import { Agent, request } from 'undici';
import { BridgeError } from '../../domain/errors.js';
import { OktaRateLimits } from './okta-rate-limit.js';

/**
 * GET requests to Okta's management API, authenticated with `Authorization: SSWS <API token>`,
 * on the org's origin only. Each request first waits while its endpoint's rate-limit bucket is
 * known to be spent (okta-rate-limit.ts); an answer is turned into a page (its JSON body and the
 * `rel="next"` link of its `Link` header, kept only when it stays on the org's origin), `undefined`
 * for a 404, or one BridgeError: 429 → `rate_limited` with `retryAfterMs` to `X-Rate-Limit-Reset`,
 * 401/403 → `source_unavailable` not retryable, 5xx and network errors → `source_unavailable`,
 * other 4xx → `source_invalid` with the status and Okta's `errorSummary` as `detail`.
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

export interface OktaPage {
  body: unknown;
  /** The next page's URL (from `Link: <…>; rel="next"`), on the org's origin. */
  next?: string;
}

type Headers = Record<string, string | string[] | undefined>;

export class OktaHttp {
  private readonly agent: Agent;
  readonly base: URL;
  readonly limits: OktaRateLimits;

  constructor(
    orgUrl: string,
    private readonly token: () => string,
    private readonly settings: OktaHttpSettings,
  ) {
    this.base = new URL(orgUrl.replace(/\/+$/, '') + '/');
    this.agent = new Agent({ connections: settings.connections, keepAliveTimeout: 30_000 });
    this.limits = new OktaRateLimits({
      defaultWaitMs: settings.defaultRateLimitWaitMs,
      maxWaitMs: settings.maxRateLimitWaitMs,
      maxInlineWaitMs: settings.maxInlineWaitMs,
    });
  }

  /** The org as messages name it (never the token). */
  get label(): string {
    return this.base.origin;
  }

  /** GETs `path` (relative to the org, query included, or a URL on its origin); undefined on 404. */
  async get(path: string, signal?: AbortSignal): Promise<OktaPage | undefined> {
    const url = new URL(path, this.base);
    if (url.origin !== this.base.origin) {
      throw new BridgeError('source_invalid', `Okta link off the org's origin: ${url.origin}`);
    }
    const route = url.pathname;
    await this.limits.before(route, signal);
    let response;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        headers: { authorization: `SSWS ${this.token()}`, accept: 'application/json' },
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : 'error';
      throw new BridgeError('source_unavailable', `Okta GET ${route} failed: ${reason}`, { cause: error });
    }
    const text = await response.body.text();
    const { statusCode: status, headers } = response;
    this.limits.after(route, status, headers);
    if (status === 404) return undefined;
    if (status >= 400) throw this.errorFor(route, status, headers, text);
    return { body: parseJsonText(text, route), ...nextLink(headers.link, this.base) };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private errorFor(route: string, status: number, headers: Headers, text: string): BridgeError {
    const summary = errorSummary(text);
    const message = `Okta GET ${route} answered ${status}${summary ? `: ${summary}` : ''}`;
    const options = { status, ...(summary ? { detail: summary } : {}) };
    if (status === 429) {
      return new BridgeError('rate_limited', message, {
        ...options,
        side: 'source',
        retryAfterMs: this.limits.waitFor(headers),
      });
    }
    if (status === 401 || status === 403)
      return new BridgeError('source_unavailable', message, { ...options, retryable: false });
    if (status >= 500) return new BridgeError('source_unavailable', message, options);
    return new BridgeError('source_invalid', message, options);
  }
}

function parseJsonText(text: string, route: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BridgeError('source_invalid', `Okta GET ${route} answered with invalid JSON`, { cause: error });
  }
}

function errorSummary(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { errorSummary?: unknown };
    return typeof body.errorSummary === 'string' ? body.errorSummary.slice(0, 500) : undefined;
  } catch {
    return text ? text.slice(0, 200) : undefined;
  }
}

/** The `rel="next"` URL of RFC 8288 Link headers, kept only when it stays on the org's origin. */
function nextLink(value: string | string[] | undefined, base: URL): { next?: string } {
  const links = Array.isArray(value) ? value.join(', ') : (value ?? '');
  for (const match of links.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]*)*)/g)) {
    const [, target, params] = match;
    if (!target || !/(^|;)\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(params ?? '')) continue;
    const url = new URL(target, base);
    if (url.origin === base.origin) return { next: url.href };
  }
  return {};
}

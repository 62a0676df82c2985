import { Agent, request } from 'undici';
import { z } from 'zod';
import { BridgeError } from '../../domain/errors.js';

/**
 * A small client of Okta's management API for profile enrichment: `GET /api/v1/users/{id}`,
 * `GET /api/v1/groups/{id}` and `GET /api/v1/users/{id}/groups`, authenticated with
 * `Authorization: SSWS <API token>`. It never waits on a rate limit itself: a 429 becomes a
 * `rate_limited` error whose `retryAfterMs` runs to `X-Rate-Limit-Reset` (UTC epoch seconds,
 * measured against the response's own `Date`, so clock skew does not matter), and the job decides.
 */

export interface OktaApiSettings {
  timeoutMs: number;
  connections: number;
  /** Wait when a 429 has no usable X-Rate-Limit-Reset. */
  defaultRateLimitWaitMs: number;
  maxRateLimitWaitMs: number;
  /** Pages of a user's groups read at most. */
  maxPages: number;
}

export const OKTA_API_DEFAULTS: Readonly<OktaApiSettings> = {
  timeoutMs: 10_000,
  connections: 4,
  defaultRateLimitWaitMs: 5_000,
  maxRateLimitWaitMs: 15 * 60_000,
  maxPages: 20,
};

export interface OktaApiOptions extends Partial<OktaApiSettings> {
  /** OKTA_ORG_URL, e.g. https://acme.okta.com */
  orgUrl: string;
  token: () => string;
}

const userSchema = z.object({
  id: z.string(),
  status: z.string(),
  profile: z.object({
    login: z.string().min(1),
    email: z.string().nullish(),
    firstName: z.string().nullish(),
    lastName: z.string().nullish(),
  }),
});

const groupSchema = z.object({
  id: z.string(),
  type: z.string().nullish(),
  profile: z.object({ name: z.string().min(1) }),
});

export type OktaUser = z.output<typeof userSchema>;
export type OktaGroup = z.output<typeof groupSchema>;

/** What the okta-events job asks Okta; `undefined` means Okta answered 404 (gone). */
export interface OktaDirectory {
  getUser(id: string): Promise<OktaUser | undefined>;
  getGroup(id: string): Promise<OktaGroup | undefined>;
  listUserGroups(userId: string): Promise<OktaGroup[] | undefined>;
  close(): Promise<void>;
}

interface Page {
  body: unknown;
  next?: string;
}

export class OktaApiClient implements OktaDirectory {
  private readonly agent: Agent;
  private readonly base: URL;
  private readonly settings: OktaApiSettings & OktaApiOptions;

  constructor(options: OktaApiOptions) {
    this.settings = { ...OKTA_API_DEFAULTS, ...options };
    this.base = new URL(options.orgUrl.replace(/\/+$/, '') + '/');
    this.agent = new Agent({ connections: this.settings.connections, keepAliveTimeout: 30_000 });
  }

  async getUser(id: string): Promise<OktaUser | undefined> {
    const page = await this.get(`api/v1/users/${encodeURIComponent(id)}`);
    return page && parseAs(userSchema, page.body, 'user');
  }

  async getGroup(id: string): Promise<OktaGroup | undefined> {
    const page = await this.get(`api/v1/groups/${encodeURIComponent(id)}`);
    return page && parseAs(groupSchema, page.body, 'group');
  }

  /** Every group the user is in, following `Link: <…>; rel="next"` pages. */
  async listUserGroups(userId: string): Promise<OktaGroup[] | undefined> {
    const groups: OktaGroup[] = [];
    let path: string | undefined = `api/v1/users/${encodeURIComponent(userId)}/groups`;
    for (let pages = 0; path !== undefined && pages < this.settings.maxPages; pages++) {
      const page = await this.get(path);
      if (!page) return undefined;
      groups.push(...parseAs(z.array(groupSchema), page.body, 'group list'));
      path = page.next;
    }
    return groups;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async get(path: string): Promise<Page | undefined> {
    const url = new URL(path, this.base);
    const route = url.pathname;
    let response;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        headers: { authorization: `SSWS ${this.settings.token()}`, accept: 'application/json' },
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
      });
    } catch (error) {
      const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : 'error';
      throw new BridgeError('source_unavailable', `Okta GET ${route} failed: ${reason}`, { cause: error });
    }
    const text = await response.body.text();
    const { statusCode: status, headers } = response;
    if (status === 404) return undefined;
    if (status >= 400) throw this.errorFor(route, status, headers, text);
    const body = parseJsonText(text, route);
    return { body, ...nextLink(headers.link, this.base) };
  }

  private errorFor(route: string, status: number, headers: Headers, text: string): BridgeError {
    const summary = errorSummary(text);
    const message = `Okta GET ${route} answered ${status}${summary ? `: ${summary}` : ''}`;
    const options = { status, ...(summary ? { detail: summary } : {}) };
    if (status === 429) {
      return new BridgeError('rate_limited', message, {
        ...options,
        side: 'source',
        retryAfterMs: this.rateLimitWait(headers),
      });
    }
    if (status === 401 || status === 403)
      return new BridgeError('source_unavailable', message, { ...options, retryable: false });
    if (status >= 500) return new BridgeError('source_unavailable', message, options);
    return new BridgeError('source_invalid', message, options);
  }

  private rateLimitWait(headers: Headers): number {
    const reset = Number(first(headers['x-rate-limit-reset']));
    if (!Number.isFinite(reset) || reset <= 0) return this.settings.defaultRateLimitWaitMs;
    const serverNow = Date.parse(first(headers.date) ?? '');
    const now = Number.isNaN(serverNow) ? Date.now() : serverNow;
    return Math.min(Math.max(reset * 1000 - now, 1000), this.settings.maxRateLimitWaitMs);
  }
}

type Headers = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseJsonText(text: string, route: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BridgeError('source_invalid', `Okta GET ${route} answered with invalid JSON`, { cause: error });
  }
}

function parseAs<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BridgeError(
    'source_invalid',
    `Okta answered an unexpected ${what}: ${issue?.path.join('.')} ${issue?.message}`,
  );
}

function errorSummary(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { errorSummary?: unknown };
    return typeof body.errorSummary === 'string' ? body.errorSummary.slice(0, 500) : undefined;
  } catch {
    return text ? text.slice(0, 200) : undefined;
  }
}

/** The `rel="next"` URL of an RFC 8288 Link header, kept only when it stays on the org's origin. */
function nextLink(value: string | string[] | undefined, base: URL): { next?: string } {
  const links = Array.isArray(value) ? value.join(',') : (value ?? '');
  for (const part of links.split(',')) {
    const match = /<([^>]+)>\s*;.*\brel="?next"?/i.exec(part);
    if (!match?.[1]) continue;
    const url = new URL(match[1], base);
    if (url.origin === base.origin) return { next: url.pathname.slice(1) + url.search };
  }
  return {};
}

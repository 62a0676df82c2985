import { z } from 'zod';
import type { ApiClient, RequestOptions } from '../../api-client/api-client.js';
import type { ApiMetrics } from '../../api-client/api-metrics.js';
import { linkPages } from '../../api-client/paging/link-pages.js';
import { BridgeError } from '../../domain/errors.js';
import { oktaHttp, type OktaHttpSettings } from './okta-http.js';
import { pageAt, pagesOf, type OktaPage, type PageOptions } from './okta-pages.js';

/**
 * Okta's management API as the okta input reads it, with `Authorization: SSWS <API token>`:
 *
 * - for a hook's event (profile enrichment): `GET /api/v1/users/{id}`, `/api/v1/groups/{id}`,
 *   `/api/v1/users/{id}/groups`. These never wait out a 429: it becomes a `rate_limited` error
 *   whose `retryAfterMs` runs to `X-Rate-Limit-Reset`, and the job decides (it pauses its queue);
 * - for a full read: `GET /api/v1/users` (Okta leaves DEPROVISIONED users out), `/api/v1/groups`
 *   with `filter=type eq "OKTA_GROUP"`, `/api/v1/groups/{id}/users`, every page followed;
 * - for the gap-filler: `GET /api/v1/logs`, one page at a time.
 *
 * List reads wait out Okta's rate limits (okta-pages.ts). Each request waits while its endpoint's
 * bucket is known to be spent (okta-rate-limit.ts), and every read retries a 5xx or a network error
 * with back-off (src/api-client/retry-policy.ts).
 */

export interface OktaApiSettings extends OktaHttpSettings {
  /** Pages of a user's groups read at most. */
  maxPages: number;
  /** Items asked per page of a list (Okta's users and groups: at most 200). */
  pageLimit: number;
}

export const OKTA_API_DEFAULTS: Readonly<OktaApiSettings> = {
  timeoutMs: 10_000,
  connections: 4,
  defaultRateLimitWaitMs: 5_000,
  maxRateLimitWaitMs: 15 * 60_000,
  maxInlineWaitMs: 65_000,
  maxPages: 20,
  pageLimit: 200,
};

export interface OktaApiOptions extends Partial<OktaApiSettings> {
  /** OKTA_ORG_URL, e.g. https://acme.okta.com */
  orgUrl: string;
  token: () => string;
  /** scim_bridge_source_requests_total and _duration_seconds, under input `okta`. */
  metrics?: ApiMetrics;
}

/** A hook's read never waits out a 429: the okta-events worker pauses its queue instead. */
const ONE_READ: RequestOptions = { retry: { throttleWaits: 0 } };

export const oktaUserSchema = z.object({
  id: z.string(),
  status: z.string(),
  profile: z.object({
    login: z.string().min(1),
    email: z.string().nullish(),
    firstName: z.string().nullish(),
    lastName: z.string().nullish(),
  }),
});

export const oktaGroupSchema = z.object({
  id: z.string(),
  type: z.string().nullish(),
  profile: z.object({ name: z.string().min(1) }),
});

export type OktaUser = z.output<typeof oktaUserSchema>;
export type OktaGroup = z.output<typeof oktaGroupSchema>;

/** What the okta-events job asks Okta; `undefined` means Okta answered 404 (gone). */
export interface OktaDirectory {
  getUser(id: string): Promise<OktaUser | undefined>;
  getGroup(id: string): Promise<OktaGroup | undefined>;
  listUserGroups(userId: string): Promise<OktaGroup[] | undefined>;
  close(): Promise<void>;
}

/** What a full read of Okta lists: raw pages, each item checked by the reader. */
export interface OktaLists {
  users(options?: PageOptions): AsyncIterable<unknown[]>;
  oktaGroups(options?: PageOptions): AsyncIterable<unknown[]>;
  groupMembers(groupId: string, options?: PageOptions): AsyncIterable<unknown[]>;
}

/** One page of the System Log: `query` on the first request, the `next` link's URL after that. */
export interface OktaLogPages {
  logPage(pathOrNext: string, options?: PageOptions): Promise<OktaPage>;
}

export class OktaApiClient implements OktaDirectory, OktaLists, OktaLogPages {
  private readonly http: ApiClient;
  private readonly settings: OktaApiSettings;

  constructor(options: OktaApiOptions) {
    this.settings = { ...OKTA_API_DEFAULTS, ...options };
    this.http = oktaHttp(options.orgUrl, options.token, this.settings, options.metrics);
  }

  get label(): string {
    return this.http.label;
  }

  async getUser(id: string): Promise<OktaUser | undefined> {
    const answer = await this.http.findJson(`api/v1/users/${encodeURIComponent(id)}`, ONE_READ);
    return answer && parseAs(oktaUserSchema, answer.body, 'user');
  }

  /** The user as Okta answers it, every profile attribute kept (for a scope or mapping to read). */
  async getUserAsIs(id: string): Promise<unknown> {
    const answer = await this.http.findJson(`api/v1/users/${encodeURIComponent(id)}`, ONE_READ);
    return answer?.body;
  }

  async getGroup(id: string): Promise<OktaGroup | undefined> {
    const answer = await this.http.findJson(`api/v1/groups/${encodeURIComponent(id)}`, ONE_READ);
    return answer && parseAs(oktaGroupSchema, answer.body, 'group');
  }

  /** Every group the user is in (`maxPages` pages at most); undefined when Okta has no such user. */
  async listUserGroups(userId: string): Promise<OktaGroup[] | undefined> {
    const path = `api/v1/users/${encodeURIComponent(userId)}/groups`;
    const options = { ...ONE_READ, absentIsEmpty: true, maxPages: this.settings.maxPages };
    let groups: OktaGroup[] | undefined;
    for await (const answer of linkPages(this.http, path, options)) {
      groups = [...(groups ?? []), ...parseAs(z.array(oktaGroupSchema), answer.body, 'group list')];
    }
    return groups;
  }

  users(options?: PageOptions): AsyncIterable<unknown[]> {
    return pagesOf(this.http, `api/v1/users?limit=${this.settings.pageLimit}`, options);
  }

  oktaGroups(options?: PageOptions): AsyncIterable<unknown[]> {
    const filter = encodeURIComponent('type eq "OKTA_GROUP"');
    return pagesOf(this.http, `api/v1/groups?filter=${filter}&limit=${this.settings.pageLimit}`, options);
  }

  groupMembers(groupId: string, options?: PageOptions): AsyncIterable<unknown[]> {
    const path = `api/v1/groups/${encodeURIComponent(groupId)}/users?limit=${this.settings.pageLimit}`;
    return pagesOf(this.http, path, options);
  }

  logPage(pathOrNext: string, options?: PageOptions): Promise<OktaPage> {
    return pageAt(this.http, pathOrNext, options);
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

export function parseAs<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BridgeError(
    'source_invalid',
    `Okta answered an unexpected ${what}: ${issue?.path.join('.')} ${issue?.message}`,
  );
}

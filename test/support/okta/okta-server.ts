import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OktaHooks, type Delivery, type HookSettings } from './okta-hooks.js';
import {
  oktaError,
  type OktaGroupRecord,
  type OktaProfile,
  type OktaUserRecord,
  type Reply,
} from './okta-json.js';
import type { LogEvent } from './okta-log-events.js';
import { OktaOrg } from './okta-org.js';
import { bucketOf, OktaRateLimits, type Bucket } from './okta-rate-limits.js';
import { route } from './okta-routes.js';

/**
 * A local HTTP server that answers like Okta's documented management API for what the bridge
 * reads — users, groups, members, the System Log (okta-routes.ts, okta-system-log.ts) — with SSWS
 * authentication (401 E0000011), per-endpoint rate limits (okta-rate-limits.ts) and Event Hook
 * delivery (okta-hooks.ts) of the changes made through its control API (okta-org.ts). Real HTTP
 * on a free port; every request is recorded. Nothing of the bridge is used.
 */
export interface OktaApiServer {
  readonly url: string;
  readonly token: string;
  /** The org and its control API: changes made through it are logged and delivered to the hook. */
  readonly org: OktaOrg;
  /** Seeds a user, group or membership without an event (state that was always there). */
  setUser(user: OktaUserRecord): void;
  setGroup(group: OktaGroupRecord): void;
  addMember(groupId: string, userId: string): void;
  removeMember(groupId: string, userId: string): void;
  createUser(profile: OktaProfile, options?: { activate?: boolean; id?: string }): OktaUserRecord;
  /** Where changes are delivered as Event Hooks; undefined stops deliveries. */
  setHook(settings: HookSettings | undefined): void;
  deliveries(): Delivery[];
  /** Resolves once every delivery begun so far has been answered or given up. */
  hooksSettled(): Promise<void>;
  /** The System Log's events, oldest first. */
  logEvents(): LogEvent[];
  /** Retention passes: every event so far is dropped, every `after` cursor issued so far refused. */
  expireLog(): void;
  /** The next `count` requests, whatever their endpoint, answer 429 until `resetInSeconds` from now. */
  rateLimitNext(count: number, resetInSeconds: number): void;
  /**
   * Scripts a server error: the next `count` requests whose path (query included) starts with
   * `pathPrefix` are answered `status` (500 E0000009 by default), after `skip` of them are answered
   * as usual. They count against no bucket: the org never saw them.
   */
  failNext(count: number, options?: ServerErrorOptions): void;
  /** Scripts one endpoint's bucket: `remaining` requests until a reset `resetInSeconds` from now. */
  setRateLimit(bucket: Bucket, remaining: number, resetInSeconds: number): void;
  /** Requests received: method, path with query, status answered, when (ms). */
  requests(): { method: string; path: string; status: number; at: number }[];
  close(): Promise<void>;
}

export interface ServerErrorOptions {
  status?: 500 | 502 | 503 | 504;
  pathPrefix?: string;
  skip?: number;
}

class OktaEmulation {
  readonly token = `00${randomBytes(20).toString('base64url')}`;
  readonly hooks = new OktaHooks();
  readonly org = new OktaOrg((events) => this.hooks.deliver(events));
  readonly limits = new OktaRateLimits();
  readonly forced = { count: 0, reset: 0 };
  serverErrors = { count: 0, status: 500, pathPrefix: '/', skip: 0 };
  readonly log: { method: string; path: string; status: number; at: number }[] = [];
  base = '';

  constructor(private readonly pageCap: number) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.base);
    const { reply, rate } = this.answer(req, url);
    this.log.push({
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      status: reply.status,
      at: Date.now(),
    });
    const links = Object.entries(reply.links ?? {}).map(([rel, link]) => `<${link.href}>; rel="${rel}"`);
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      date: new Date().toUTCString(),
      ...rate,
      ...reply.headers,
      ...(links.length > 0 ? { link: links } : {}),
    });
    res.end(JSON.stringify(reply.body));
  }

  private answer(req: IncomingMessage, url: URL): { reply: Reply; rate: Record<string, string> } {
    if (req.headers.authorization !== `SSWS ${this.token}`) {
      return { reply: { status: 401, body: oktaError('E0000011', 'Invalid token provided') }, rate: {} };
    }
    const failed = this.serverError(url);
    if (failed) return { reply: failed, rate: {} };
    const taken = this.limits.take(bucketOf(url.pathname));
    if (this.forced.count > 0) {
      this.forced.count--;
      const rate = {
        ...taken.headers,
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(this.forced.reset),
      };
      return { reply: tooMany(), rate };
    }
    if (taken.limited) return { reply: tooMany(), rate: taken.headers };
    if (req.method !== 'GET') {
      const body = oktaError('E0000022', 'The endpoint does not support the provided HTTP method');
      return { reply: { status: 405, body }, rate: taken.headers };
    }
    return { reply: route(this.org, url, this.base, this.pageCap), rate: taken.headers };
  }

  private serverError(url: URL): Reply | undefined {
    const scripted = this.serverErrors;
    if (scripted.count <= 0 || !(url.pathname + url.search).startsWith(scripted.pathPrefix)) return undefined;
    if (scripted.skip > 0) {
      scripted.skip--;
      return undefined;
    }
    scripted.count--;
    return { status: scripted.status, body: oktaError('E0000009', 'Internal Server Error') };
  }
}

function tooMany(): Reply {
  return {
    status: 429,
    body: oktaError('E0000047', 'API call exceeded rate limit due to too many requests.'),
  };
}

/** `pageSize`: the org's cap on list pages, below Okta's own (tests force paging with it). */
export async function startOktaApi(options: { pageSize?: number } = {}): Promise<OktaApiServer> {
  const okta = new OktaEmulation(options.pageSize ?? Infinity);
  const server = createServer((req, res) => okta.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  okta.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { org } = okta;
  return {
    url: okta.base,
    token: okta.token,
    org,
    setUser: (user) => void org.users.set(user.id, user),
    setGroup: (group) => void org.groups.set(group.id, group),
    addMember: (groupId, userId) => org.setMember(groupId, userId, true),
    removeMember: (groupId, userId) => org.setMember(groupId, userId, false),
    createUser: (profile, create) => org.createUser(profile, create),
    setHook: (settings) => okta.hooks.configure(settings),
    deliveries: () => [...okta.hooks.deliveries],
    hooksSettled: () => okta.hooks.settled(),
    logEvents: () => org.log.all() as LogEvent[],
    expireLog: () => org.log.expireAll(),
    rateLimitNext: (count, resetInSeconds) => {
      okta.forced.count = count;
      okta.forced.reset = Math.floor(Date.now() / 1000) + resetInSeconds;
    },
    failNext: (count, failure = {}) => {
      okta.serverErrors = {
        count,
        status: failure.status ?? 500,
        pathPrefix: failure.pathPrefix ?? '/',
        skip: failure.skip ?? 0,
      };
    },
    setRateLimit: (bucket, remaining, resetInSeconds) => okta.limits.set(bucket, remaining, resetInSeconds),
    requests: () => [...okta.log],
    close: async () => {
      okta.hooks.configure(undefined);
      await okta.hooks.settled();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

export type { Bucket, Delivery, HookSettings, LogEvent, OktaGroupRecord, OktaProfile, OktaUserRecord };

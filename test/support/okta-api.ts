import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that answers like Okta's documented management API, for the parts the
 * bridge reads: `GET /api/v1/users/{id or login}`, `GET /api/v1/groups/{id}` and
 * `GET /api/v1/users/{id}/groups` (paged with `limit`/`after` and `Link: rel="next"`). It checks
 * `Authorization: SSWS <token>` (401 E0000011), answers unknown ids with 404 E0000007, sends the
 * X-Rate-Limit-* headers on every response, and can be told to answer the next requests with
 * 429 E0000047 until a reset time. Real HTTP on a free port; every request is recorded.
 */

export interface OktaProfile {
  login: string;
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
}

export interface OktaUserRecord {
  id: string;
  status: string;
  profile: OktaProfile;
}

export interface OktaGroupRecord {
  id: string;
  type?: 'OKTA_GROUP' | 'APP_GROUP' | 'BUILT_IN';
  name: string;
  description?: string;
}

export interface OktaApiServer {
  readonly url: string;
  readonly token: string;
  setUser(user: OktaUserRecord): void;
  setGroup(group: OktaGroupRecord): void;
  addMember(groupId: string, userId: string): void;
  removeMember(groupId: string, userId: string): void;
  /** The next `count` requests answer 429 with X-Rate-Limit-Reset `resetInSeconds` from now. */
  rateLimitNext(count: number, resetInSeconds: number): void;
  /** Requests received: method, path with query, status answered. */
  requests(): { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

const LIMIT = 600;
const STAMP = '2024-03-01T09:00:00.000Z';

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

class OktaEmulation {
  readonly token = `00${randomBytes(20).toString('base64url')}`;
  readonly users = new Map<string, OktaUserRecord>();
  readonly groups = new Map<string, OktaGroupRecord>();
  readonly members = new Map<string, Set<string>>();
  readonly log: { method: string; path: string; status: number }[] = [];
  readonly limited = { count: 0, reset: 0 };
  base = '';

  constructor(private readonly pageSize: number) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.base);
    const reply = this.answer(req, url);
    this.log.push({ method: req.method ?? 'GET', path: url.pathname + url.search, status: reply.status });
    const limited = reply.status === 429;
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'x-rate-limit-limit': String(LIMIT),
      'x-rate-limit-remaining': String(limited ? 0 : LIMIT - 1),
      'x-rate-limit-reset': String(limited ? this.limited.reset : Math.floor(Date.now() / 1000) + 60),
      ...reply.headers,
    });
    res.end(JSON.stringify(reply.body));
  }

  private answer(req: IncomingMessage, url: URL): Reply {
    if (req.headers.authorization !== `SSWS ${this.token}`) {
      return { status: 401, body: oktaError('E0000011', 'Invalid token provided') };
    }
    if (this.limited.count > 0) {
      this.limited.count--;
      return {
        status: 429,
        body: oktaError('E0000047', 'API call exceeded rate limit due to too many requests.'),
      };
    }
    if (req.method !== 'GET')
      return {
        status: 405,
        body: oktaError('E0000022', 'The endpoint does not support the provided HTTP method'),
      };
    return this.route(url);
  }

  private route(url: URL): Reply {
    const [api, v1, users, id, tail, ...rest] = url.pathname.split('/').slice(1);
    if (api !== 'api' || v1 !== 'v1')
      return {
        status: 404,
        body: oktaError('E0000022', 'The endpoint does not support the provided HTTP method'),
      };
    const key = decodeURIComponent(id ?? '');
    if (users === 'users' && tail === 'groups' && rest.length === 0) {
      const user = this.findUser(key);
      return user ? this.userGroups(url, user.id) : { status: 404, body: notFound(key, 'User') };
    }
    if (users === 'users' && tail === undefined) {
      const user = this.findUser(key);
      return user
        ? { status: 200, body: userJson(user, this.base) }
        : { status: 404, body: notFound(key, 'User') };
    }
    if (users === 'groups' && tail === undefined) {
      const group = this.groups.get(key);
      return group
        ? { status: 200, body: groupJson(group, this.base) }
        : { status: 404, body: notFound(key, 'UserGroup') };
    }
    return {
      status: 404,
      body: oktaError('E0000022', 'The endpoint does not support the provided HTTP method'),
    };
  }

  private findUser(idOrLogin: string): OktaUserRecord | undefined {
    const login = idOrLogin.toLowerCase();
    return (
      this.users.get(idOrLogin) ??
      [...this.users.values()].find((u) => u.profile.login.toLowerCase() === login)
    );
  }

  private userGroups(url: URL, userId: string): Reply {
    const all = [...this.groups.values()]
      .filter((g) => this.members.get(g.id)?.has(userId))
      .sort((a, b) => a.id.localeCompare(b.id));
    const limit = Number(url.searchParams.get('limit') ?? this.pageSize);
    const after = url.searchParams.get('after');
    const start = after ? all.findIndex((g) => g.id === after) + 1 : 0;
    const page = all.slice(start, start + limit);
    const last = page.at(-1);
    const headers: Record<string, string> =
      last && start + limit < all.length
        ? { link: `<${this.base}/api/v1/users/${userId}/groups?limit=${limit}&after=${last.id}>; rel="next"` }
        : {};
    return { status: 200, body: page.map((g) => groupJson(g, this.base)), headers };
  }
}

export async function startOktaApi(options: { pageSize?: number } = {}): Promise<OktaApiServer> {
  const okta = new OktaEmulation(options.pageSize ?? 200);
  const server = createServer((req, res) => okta.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  okta.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: okta.base,
    token: okta.token,
    setUser: (user) => void okta.users.set(user.id, user),
    setGroup: (group) => void okta.groups.set(group.id, group),
    addMember: (groupId, userId) =>
      void okta.members.set(groupId, (okta.members.get(groupId) ?? new Set()).add(userId)),
    removeMember: (groupId, userId) => void okta.members.get(groupId)?.delete(userId),
    rateLimitNext: (count, resetInSeconds) => {
      okta.limited.count = count;
      okta.limited.reset = Math.floor(Date.now() / 1000) + resetInSeconds;
    },
    requests: () => [...okta.log],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function oktaError(errorCode: string, errorSummary: string) {
  return {
    errorCode,
    errorSummary,
    errorLink: errorCode,
    errorId: `oae${randomBytes(8).toString('hex')}`,
    errorCauses: [],
  };
}

function notFound(id: string, type: string) {
  return oktaError('E0000007', `Not found: Resource not found: ${id} (${type})`);
}

function userJson(user: OktaUserRecord, base: string) {
  return {
    id: user.id,
    status: user.status,
    created: STAMP,
    activated: user.status === 'STAGED' ? null : STAMP,
    statusChanged: STAMP,
    lastLogin: null,
    lastUpdated: STAMP,
    passwordChanged: STAMP,
    type: { id: 'oty1a2b3c4d5e6f7g8h9' },
    profile: { mobilePhone: null, secondEmail: null, ...user.profile },
    credentials: { provider: { type: 'OKTA', name: 'OKTA' } },
    _links: { self: { href: `${base}/api/v1/users/${user.id}` } },
  };
}

function groupJson(group: OktaGroupRecord, base: string) {
  return {
    id: group.id,
    created: STAMP,
    lastUpdated: STAMP,
    lastMembershipUpdated: STAMP,
    objectClass: ['okta:user_group'],
    type: group.type ?? 'OKTA_GROUP',
    profile: { name: group.name, description: group.description ?? null },
    _links: {
      logo: [
        {
          name: 'medium',
          href: 'https://example.okta.com/img/logos/groups/okta-medium.png',
          type: 'image/png',
        },
      ],
      users: { href: `${base}/api/v1/groups/${group.id}/users` },
      apps: { href: `${base}/api/v1/groups/${group.id}/apps` },
    },
  };
}

import { groupJson, noSuchEndpoint, notFound, oktaError, userJson, type Reply } from './okta-json.js';
import type { OktaGroupRecord, OktaUserRecord } from './okta-json.js';
import { OktaFilterError, parseOktaFilter } from './okta-filter.js';
import type { OktaOrg } from './okta-org.js';

/**
 * The GET endpoints of Okta's management API the bridge reads, as the reference describes them:
 *
 * - `/api/v1/users`: users that are not DEPROVISIONED (unless a `filter` / `search` is given, which
 *   then picks among all), `limit` default 200 and at most 200, `after` = the cursor of the next link;
 * - `/api/v1/users/{id or login}`, `/api/v1/users/{id}/groups` (paged);
 * - `/api/v1/groups`: `filter` (e.g. `type eq "OKTA_GROUP"`), `search`, `q` (name starts with,
 *   not paged, 10 by default); `limit` default 200, at most 200;
 * - `/api/v1/groups/{id}`, `/api/v1/groups/{id}/users` (`limit` default 1000, at most 1000);
 * - `/api/v1/logs`: okta-system-log.ts.
 *
 * Lists are in id order; `after` is the id of the last item of the previous page; every page has a
 * `rel="self"` link and, when more follow, a `rel="next"` one.
 */
export function route(org: OktaOrg, url: URL, base: string, pageCap = Infinity): Reply {
  const [api, v1, collection, rawId, tail, ...rest] = url.pathname.split('/').slice(1);
  if (api !== 'api' || v1 !== 'v1' || rest.length > 0) return noSuchEndpoint();
  const id = decodeURIComponent(rawId ?? '');
  if (collection === 'logs' && rawId === undefined) return org.log.list(url);
  const at = { url, base, pageCap };
  if (collection === 'users') return users(org, at, id, rawId === undefined, tail);
  if (collection === 'groups') return groups(org, at, id, rawId === undefined, tail);
  return noSuchEndpoint();
}

/** The request, the org's base URL, and the org's own cap on page sizes (tests force paging). */
interface At {
  url: URL;
  base: string;
  pageCap: number;
}

function users(org: OktaOrg, at: At, id: string, list: boolean, tail?: string): Reply {
  const { base } = at;
  if (list) return listUsers(org, at);
  const user = findUser(org, id);
  if (!user) return notFound(id, 'User');
  if (tail === undefined) return { status: 200, body: userJson(user, base) };
  if (tail !== 'groups') return noSuchEndpoint();
  const groups = [...org.groups.values()].filter((g) => org.members.get(g.id)?.has(user.id));
  return page(at, sorted(groups), 200, 200, (g) => groupJson(g, base));
}

function groups(org: OktaOrg, at: At, id: string, list: boolean, tail?: string): Reply {
  const { base } = at;
  if (list) return listGroups(org, at);
  const group = org.groups.get(id);
  if (!group) return notFound(id, 'UserGroup');
  if (tail === undefined) return { status: 200, body: groupJson(group, base) };
  if (tail !== 'users') return noSuchEndpoint();
  const members = [...(org.members.get(id) ?? [])].flatMap((userId) => {
    const user = org.users.get(userId);
    return user ? [user] : [];
  });
  return page(at, sorted(members), 1000, 1000, (u) => userJson(u, base));
}

function listUsers(org: OktaOrg, at: At): Reply {
  const { url, base } = at;
  const expression = url.searchParams.get('filter') ?? url.searchParams.get('search');
  const all = [...org.users.values()];
  const chosen = chosenBy(expression, all, (u) => userJson(u, base));
  if ('status' in chosen) return chosen;
  const users = expression === null ? all.filter((u) => u.status !== 'DEPROVISIONED') : chosen.items;
  return page(at, sorted(users), 200, 200, (u) => userJson(u, base));
}

function listGroups(org: OktaOrg, at: At): Reply {
  const { url, base } = at;
  const all = [...org.groups.values()];
  const q = url.searchParams.get('q');
  if (q !== null) {
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 10), 200);
    const found = sorted(all.filter((g) => g.name.toLowerCase().startsWith(q.toLowerCase())));
    return { status: 200, body: found.slice(0, limit).map((g) => groupJson(g, base)), links: { self: url } };
  }
  const expression = url.searchParams.get('filter') ?? url.searchParams.get('search');
  const chosen = chosenBy(expression, all, (g) => groupJson(g, base));
  if ('status' in chosen) return chosen;
  return page(at, sorted(chosen.items), 200, 200, (g) => groupJson(g, base));
}

function chosenBy<T>(
  expression: string | null,
  items: readonly T[],
  json: (item: T) => unknown,
): Reply | { items: T[] } {
  if (expression === null) return { items: [...items] };
  try {
    const filter = parseOktaFilter(expression);
    return { items: items.filter((item) => filter(json(item))) };
  } catch (error) {
    if (!(error instanceof OktaFilterError)) throw error;
    return { status: 400, body: oktaError('E0000031', `Invalid search criteria. ${error.message}`) };
  }
}

/** One page of `items` after the `after` cursor, with its self and next links. */
function page<T extends { id: string }>(
  { url, pageCap }: At,
  items: readonly T[],
  defaultLimit: number,
  maxLimit: number,
  json: (item: T) => unknown,
): Reply {
  const fallback = Math.min(defaultLimit, pageCap);
  const asked = Number(url.searchParams.get('limit') ?? fallback);
  const limit = Math.min(Number.isInteger(asked) && asked > 0 ? asked : fallback, maxLimit, pageCap);
  const after = url.searchParams.get('after');
  const start = after === null ? 0 : items.findIndex((item) => item.id > after);
  const from = start === -1 ? items.length : start;
  const slice = items.slice(from, from + limit);
  const links: Reply['links'] = { self: url };
  const last = slice.at(-1);
  if (last && from + limit < items.length) {
    const next = new URL(url);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('after', last.id);
    links.next = next;
  }
  return { status: 200, body: slice.map(json), links };
}

function sorted<T extends { id: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function findUser(org: OktaOrg, idOrLogin: string): OktaUserRecord | undefined {
  const login = idOrLogin.toLowerCase();
  return (
    org.users.get(idOrLogin) ?? [...org.users.values()].find((u) => u.profile.login.toLowerCase() === login)
  );
}

export type { OktaGroupRecord, OktaUserRecord };

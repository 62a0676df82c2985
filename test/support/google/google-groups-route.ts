import {
  badRequest,
  domainNotFound,
  invalidInput,
  notAuthorized,
  resourceNotFound,
  type Reply,
} from './google-errors.js';
import type { GroupRecord, MemberRecord, MemberRole, WorkspaceModel } from './google-model.js';
import { walk, type PageTokens } from './google-paging.js';
import { boolParam, enumParam, intParam, isReply } from './google-params.js';
import { groupQuery, QueryError } from './google-query.js';
import { groupJson, memberJson } from './google-resources.js';
import { answer } from './google-users-route.js';

/**
 * `groups.list`, `groups.get` and `members.list` of the Directory API (reference/rest/v1/groups,
 * members; guides/search-groups):
 *
 * - groups.list: `customer`, `domain` or `userKey` (the groups a user or group is directly in) —
 *   `userKey` with `customer` is refused (400, google-api-nodejs-client #2515); `maxResults` 1–200
 *   (default 200); `query` (`email:`, `name:`, `memberKey=`); `orderBy=email`; `sortOrder`.
 * - groups.get and members.list: the groupKey is the id, address or an alias; 404 otherwise. A
 *   group of another customer (a cross-domain subgroup) answers 403 "Not Authorized to access this
 *   resource/api" (idp-scim-sync #49; Firezone skips such subgroups).
 * - members.list: `maxResults` 1–200 (default 200), `roles` (OWNER, MANAGER, MEMBER, comma-
 *   separated), `includeDerivedMembership` (indirect members too, with nothing to tell them from
 *   direct ones; here cycle-safe). An empty group's answer has no `members`.
 */

const GROUP_FIELDS = [
  'kind',
  'id',
  'etag',
  'email',
  'name',
  'directMembersCount',
  'description',
  'adminCreated',
  'aliases',
  'nonEditableAliases',
];
const MEMBER_FIELDS = ['kind', 'etag', 'id', 'email', 'role', 'type', 'status', 'delivery_settings'];
const GROUPS_SHAPE = {
  names: ['kind', 'etag', 'groups', 'nextPageToken'],
  list: { key: 'groups', names: GROUP_FIELDS },
};
const MEMBERS_SHAPE = {
  names: ['kind', 'etag', 'members', 'nextPageToken'],
  list: { key: 'members', names: MEMBER_FIELDS },
};
const ROLES: readonly MemberRole[] = ['OWNER', 'MANAGER', 'MEMBER'];

interface Context {
  model: WorkspaceModel;
  tokens: PageTokens;
}

export function listGroups(ctx: Context, url: URL): Reply {
  const { model } = ctx;
  const params = url.searchParams;
  const customer = params.get('customer');
  const domain = params.get('domain');
  const userKey = params.get('userKey');
  if (customer === null && domain === null && userKey === null) return badRequest();
  if (customer !== null && userKey !== null) return badRequest();
  if (customer !== null && customer !== 'my_customer' && customer !== model.customerId) return badRequest();
  if (domain !== null && !model.domains.includes(domain.toLowerCase())) return domainNotFound();
  const limit = intParam(url, 'maxResults', { min: 1, max: 200, fallback: 200 });
  const order = enumParam(url, 'orderBy', ['email']);
  const direction = enumParam(url, 'sortOrder', ['ASCENDING', 'DESCENDING'], 'ASCENDING');
  for (const checked of [limit, order, direction]) if (isReply(checked)) return checked;
  let query: ReturnType<typeof groupQuery> | undefined;
  try {
    const raw = params.get('query');
    query = raw === null || raw.trim() === '' ? undefined : groupQuery(raw);
  } catch (error) {
    if (error instanceof QueryError) return invalidInput('query');
    throw error;
  }
  const within = [userKey, query?.memberKey].filter(
    (key): key is string => key !== null && key !== undefined,
  );
  const containers: Set<string>[] = [];
  for (const key of within) {
    const found = model.resolve(key)?.id ?? (model.users.has(key) || model.groups.has(key) ? key : undefined);
    if (found === undefined) return resourceNotFound(key === userKey ? 'userKey' : 'memberKey');
    containers.push(model.memberOf.get(found) ?? new Set());
  }
  const token = params.get('pageToken');
  const after = token === null ? undefined : ctx.tokens.read(url, token);
  if (token !== null && after === undefined) return invalidInput('pageToken');
  const byEmail = order === 'email';
  const get = (id: string) => model.groups.get(id) as GroupRecord;
  const ids = model.sortedIds(
    `groups:${String(byEmail)}`,
    () => model.groups.keys(),
    byEmail ? (id) => get(id).email.toLowerCase() : undefined,
  );
  const keyOf = byEmail ? (id: string) => `${get(id).email.toLowerCase()}\u0000${id}` : (id: string) => id;
  const accept = (id: string) => {
    const group = get(id);
    if (group.foreign || containers.some((set) => !set.has(id))) return false;
    if (domain !== null && !group.email.toLowerCase().endsWith(`@${domain.toLowerCase()}`)) return false;
    return !query || query.holds(group);
  };
  const page = walk(ids, keyOf, {
    after,
    descending: direction === 'DESCENDING',
    limit: limit as number,
    accept,
  });
  const body: Record<string, unknown> = {
    kind: 'admin#directory#groups',
    etag: `"${model.customerId}/${model.version}"`,
  };
  if (page.ids.length > 0) body.groups = page.ids.map((id) => groupJson(model, get(id)));
  if (page.next !== undefined) body.nextPageToken = ctx.tokens.issue(url, page.next);
  return answer(body, url, GROUPS_SHAPE);
}

export function getGroup(ctx: Context, url: URL, groupKey: string): Reply {
  const group = ctx.model.group(groupKey);
  if (!group) return resourceNotFound('groupKey');
  if (group.foreign) return notAuthorized();
  return answer(groupJson(ctx.model, group), url, { names: GROUP_FIELDS });
}

export function listMembers(ctx: Context, url: URL, groupKey: string): Reply {
  const { model } = ctx;
  const group = model.group(groupKey);
  if (!group) return resourceNotFound('groupKey');
  if (group.foreign) return notAuthorized();
  const limit = intParam(url, 'maxResults', { min: 1, max: 200, fallback: 200 });
  if (isReply(limit)) return limit;
  const derived = boolParam(url, 'includeDerivedMembership');
  if (isReply(derived)) return derived;
  const roles = rolesOf(url.searchParams.get('roles'));
  if (roles === undefined) return invalidInput('roles');
  const token = url.searchParams.get('pageToken');
  const after = token === null ? undefined : ctx.tokens.read(url, token);
  if (token !== null && after === undefined) return invalidInput('pageToken');
  const members = derived
    ? derivedMembers(model, group.id)
    : (model.members.get(group.id) ?? new Map<string, MemberRecord>());
  const ids = model.sortedIds(`members:${String(derived)}:${group.id}`, () => members.keys());
  const accept =
    roles.length === ROLES.length
      ? undefined
      : (id: string) => roles.includes((members.get(id) as MemberRecord).role);
  const page = walk(ids, (id) => id, { after, limit, accept });
  const body: Record<string, unknown> = {
    kind: 'admin#directory#members',
    etag: `"${group.id}/${model.version}"`,
  };
  if (page.ids.length > 0)
    body.members = page.ids.map((id) => memberJson(model, members.get(id) as MemberRecord));
  if (page.next !== undefined) body.nextPageToken = ctx.tokens.issue(url, page.next);
  return answer(body, url, MEMBERS_SHAPE);
}

function rolesOf(raw: string | null): MemberRole[] | undefined {
  if (raw === null || raw === '') return [...ROLES];
  const roles = raw.split(',').map((role) => role.trim().toUpperCase());
  return roles.every((role) => (ROLES as readonly string[]).includes(role))
    ? (roles as MemberRole[])
    : undefined;
}

/** Direct members, then those of the subgroups of the account at any depth, each once. */
function derivedMembers(model: WorkspaceModel, groupId: string): Map<string, MemberRecord> {
  return model.memo(`derived:${groupId}`, () => {
    const found = new Map<string, MemberRecord>();
    const seen = new Set<string>([groupId]);
    const queue = [groupId];
    while (queue.length > 0) {
      for (const member of model.members.get(queue.shift() as string)?.values() ?? []) {
        if (!found.has(member.id)) found.set(member.id, member);
        const subgroup = member.type === 'GROUP' ? model.groups.get(member.id) : undefined;
        if (subgroup && !subgroup.foreign && !seen.has(subgroup.id)) {
          seen.add(subgroup.id);
          queue.push(subgroup.id);
        }
      }
    }
    return found;
  });
}

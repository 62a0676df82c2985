import { parseFilter, FilterError, type Filter } from './entra-filter.js';
import {
  badSkipToken,
  context,
  fail,
  forbidden,
  formatQuery,
  notFound,
  type GraphCall,
} from './entra-graph-call.js';
import { listJson, memberJson, type DirectoryObject, type ObjectKind } from './entra-objects.js';
import { allows, reads } from './entra-permissions.js';
import { isAdvanced, pageSize, QueryError, refuseUnmodelled, selection } from './entra-query.js';
import type { Reply } from './entra-replies.js';
import type { OrderedIds } from './ordered-ids.js';

/**
 * The collections Graph pages with `@odata.nextLink` (paging.md): `/users`, `/groups`,
 * `/groups/{id}/members`, `/servicePrincipals/{id}/appRoleAssignedTo`. Default page 100,
 * `$top` 1–999. The next link repeats the request with an opaque `$skiptoken` sealed for that very
 * query: a token altered, from another query or another server is refused. A page looks at no more
 * than `scanLimit` entries, so a sparse filter can answer a page with no items and a next link.
 */
export interface ListSettings {
  scanLimit: number;
}

const MEMBER_KINDS: ObjectKind[] = ['user', 'group', 'device', 'orgContact', 'servicePrincipal'];

export function listDirectory(call: GraphCall, kind: 'user' | 'group', settings: ListSettings): Reply {
  if (!allows(call.token.roles, kind === 'user' ? 'users' : 'groups')) return forbidden(call);
  refuseUnmodelled(call.options, ['$orderby', '$search', '$expand']);
  const select = selection(call.options, [kind]);
  const top = pageSize(call.options, 100);
  const advanced = isAdvanced(call.options, call.headers);
  if (call.options.has('$count') && !advanced) {
    return fail(call, 400, 'Request_BadRequest', '$count is not currently supported.');
  }
  const filter = filterOf(call, kind, advanced);
  const directory = call.tenant.directory;
  const set = kind === 'user' ? directory.users : directory.groups;
  const accept = (object: DirectoryObject) =>
    object.deletedAt === undefined && (!filter || filter.test(object));
  const entitySet = `${kind}s`;
  if (filter?.lookup && filter.lookup.values.length <= top && !call.options.has('$skiptoken')) {
    const found = filter.lookup.values.flatMap((v) => directory.find(v, kind) ?? []).filter(accept);
    const value = found.map((o) => listJson(o, select));
    const body = { '@odata.context': context(call, entitySet, select), value };
    return { status: 200, body: advanced ? { ...body, '@odata.count': found.length } : body };
  }
  const count =
    advanced && !call.options.has('$skiptoken') ? countOf(set, directory.objects, accept) : undefined;
  return page(
    call,
    set,
    top,
    settings,
    entitySet,
    select,
    (id) => {
      const object = directory.objects.get(id) as DirectoryObject;
      return accept(object) ? listJson(object, select) : undefined;
    },
    count,
  );
}

export function listMembers(call: GraphCall, groupId: string, settings: ListSettings): Reply {
  if (!allows(call.token.roles, 'members')) return forbidden(call);
  const group = call.tenant.directory.find(groupId, 'group');
  if (!group) return notFound(call, groupId);
  if (call.options.has('$filter') && !isAdvanced(call.options, call.headers)) {
    return fail(
      call,
      400,
      'Request_UnsupportedQuery',
      'Filter on members requires ConsistencyLevel:eventual and $count=true.',
    );
  }
  refuseUnmodelled(call.options, ['$filter', '$orderby', '$search', '$expand', '$count']);
  const select = selection(call.options, MEMBER_KINDS);
  const top = pageSize(call.options, 100);
  const members = call.tenant.directory.members.get(group.id) as OrderedIds;
  return page(call, members, top, settings, 'directoryObjects', select, (id) => {
    const object = call.tenant.directory.objects.get(id);
    if (!object || object.deletedAt !== undefined) return undefined;
    return memberJson(object, select, reads(call.token.roles, object.kind));
  });
}

export function listAssignedTo(call: GraphCall, servicePrincipalId: string, settings: ListSettings): Reply {
  if (!allows(call.token.roles, 'servicePrincipals')) return forbidden(call);
  const resource = call.tenant.directory.find(servicePrincipalId, 'servicePrincipal');
  if (!resource) return notFound(call, servicePrincipalId);
  refuseUnmodelled(call.options, ['$filter', '$orderby', '$search', '$expand', '$count']);
  const names = [
    'id',
    'deletedDateTime',
    'appRoleId',
    'createdDateTime',
    'principalDisplayName',
    'principalId',
    'principalType',
    'resourceDisplayName',
    'resourceId',
  ];
  const select = selectAmong(call, names);
  const top = pageSize(call.options, 100);
  const { assignments, directory } = call.tenant;
  const entitySet = `servicePrincipals('${resource.id}')/appRoleAssignedTo`;
  return page(call, assignments.of(resource.id), top, settings, entitySet, select, (id) => {
    const assignment = assignments.get(id);
    if (!assignment || directory.find(assignment.principalId) === undefined) return undefined;
    const json = assignments.json(assignment);
    return select ? Object.fromEntries(select.map((name) => [name, json[name]])) : json;
  });
}

export function page(
  call: GraphCall,
  set: OrderedIds,
  top: number,
  settings: ListSettings,
  entitySet: string,
  select: string[] | undefined,
  render: (id: string) => Record<string, unknown> | undefined,
  count?: number,
): Reply {
  const query = queryKey(call);
  const after = resumeAfter(call, query);
  if (after === undefined) return badSkipToken(call);
  const value: Record<string, unknown>[] = [];
  const found = set.page(
    after,
    top,
    (id) => {
      const json = render(id);
      if (json) value.push(json);
      return json !== undefined;
    },
    top + settings.scanLimit,
  );
  const body: Record<string, unknown> = { '@odata.context': context(call, entitySet, select) };
  if (count !== undefined) body['@odata.count'] = count;
  if (!found.done) {
    const token = call.stateTokens.seal({ k: 'list', q: query, t: call.tenant.id, c: found.cursor });
    body['@odata.nextLink'] = nextLink(call, token);
  }
  body.value = value;
  return { status: 200, body };
}

function filterOf(call: GraphCall, kind: ObjectKind, advanced: boolean): Filter | undefined {
  const text = call.options.get('$filter');
  if (text === undefined) return undefined;
  try {
    return parseFilter(text, kind, advanced);
  } catch (error) {
    if (error instanceof FilterError) throw new QueryError(400, error.code, error.message);
    throw error;
  }
}

function selectAmong(call: GraphCall, names: string[]): string[] | undefined {
  const raw = call.options.get('$select');
  if (raw === undefined) return undefined;
  return raw.split(',').map((name) => {
    const found = names.find((n) => n.toLowerCase() === name.trim().toLowerCase());
    if (!found)
      throw new QueryError(
        400,
        'Request_BadRequest',
        `Could not find a property named '${name}' on type 'microsoft.graph.appRoleAssignment'.`,
      );
    return found;
  });
}

function countOf(
  set: OrderedIds,
  objects: Map<string, DirectoryObject>,
  accept: (o: DirectoryObject) => boolean,
): number {
  return set.ids().filter((id) => accept(objects.get(id) as DirectoryObject)).length;
}

/** Where the page starts: 0, the cursor of a skip token sealed for this query, or undefined. */
function resumeAfter(call: GraphCall, query: string): number | undefined {
  const skipToken = call.options.get('$skiptoken');
  if (skipToken === undefined) return 0;
  const state = call.stateTokens.open(skipToken);
  const ours = state?.k === 'list' && state.q === query && state.t === call.tenant.id;
  return ours && typeof state.c === 'number' ? state.c : undefined;
}

/** The request without its skip token: what a skip token is sealed for. */
function queryKey(call: GraphCall): string {
  const params = [...call.url.searchParams].filter(([name]) => name.toLowerCase() !== '$skiptoken');
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${call.path.join('/')}?${new URLSearchParams(params).toString()}`;
}

function nextLink(call: GraphCall, token: string): string {
  const params = [...call.url.searchParams].filter(([name]) => name.toLowerCase() !== '$skiptoken');
  params.push(['$skiptoken', token]);
  return `${call.linkBase}/v1.0/${call.path.map(encodeURIComponent).join('/')}?${formatQuery(params)}`;
}

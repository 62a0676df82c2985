import type { DeltaEndpoint } from './entra-delta.js';
import { context, fail, forbidden, notFound, type GraphCall } from './entra-graph-call.js';
import { listAssignedTo, listDirectory, listMembers, type ListSettings } from './entra-lists.js';
import { listTransitiveMemberOf } from './entra-member-of.js';
import { listJson, type DirectoryObject, type ObjectKind } from './entra-objects.js';
import { allows, type Operation } from './entra-permissions.js';
import { refuseUnmodelled, selection } from './entra-query.js';
import type { Reply } from './entra-replies.js';

/**
 * The Graph v1.0 reads the emulation serves:
 *
 * - `/users`, `/users/delta`, `/users/{id | userPrincipalName}`, and its `/transitiveMemberOf`;
 * - `/groups`, `/groups/delta`, `/groups/{id}`, `/groups/{id}/members`, `/groups/{id}/transitiveMemberOf`;
 * - `/servicePrincipals/{id}` or `/servicePrincipals(appId='…')`, and their `/appRoleAssignedTo`.
 *
 * Anything else answers as Graph does for a segment it does not know (400), or 501 where Graph
 * has the endpoint but the emulation does not model it.
 */
export function routeGraph(call: GraphCall, lists: ListSettings, delta: DeltaEndpoint): Reply {
  const [collection, id, relation, ...rest] = call.path;
  if (rest[0]?.startsWith('microsoft.graph.')) return unmodelled(call, `the cast ${rest[0]}`);
  if (rest.length > 0) return unknownSegment(call, rest[0] as string);
  if (collection === 'users') {
    if (id === undefined) return listDirectory(call, 'user', lists);
    if (isDelta(id) && relation === undefined) return delta.answer(call, 'users');
    if (relation === undefined) return getObject(call, 'user', id, 'users');
    if (relation === 'transitiveMemberOf') return listTransitiveMemberOf(call, 'user', id, lists);
    return unmodelled(call, `users/{id}/${relation}`);
  }
  if (collection === 'groups') {
    if (id === undefined) return listDirectory(call, 'group', lists);
    if (isDelta(id) && relation === undefined) return delta.answer(call, 'groups');
    if (relation === undefined) return getObject(call, 'group', id, 'groups');
    if (relation === 'members') return listMembers(call, id, lists);
    if (relation === 'transitiveMemberOf') return listTransitiveMemberOf(call, 'group', id, lists);
    return unmodelled(call, `groups/{id}/${relation}`);
  }
  const keyed = /^servicePrincipals\(appId='([^']+)'\)$/.exec(collection ?? '');
  if (collection === 'servicePrincipals' || keyed) {
    const spId = keyed ? appIdToId(call, keyed[1] as string) : id;
    const sub = keyed ? id : relation;
    if (spId === undefined)
      return keyed ? notFound(call, keyed[1] as string) : unmodelled(call, 'servicePrincipals');
    if (sub === undefined) return getObject(call, 'servicePrincipal', spId, 'servicePrincipals');
    if (sub === 'appRoleAssignedTo' && !(keyed && relation !== undefined))
      return listAssignedTo(call, spId, lists);
    return unmodelled(call, `servicePrincipals/{id}/${sub}`);
  }
  if (GRAPH_ELSEWHERE.includes(collection ?? '')) return unmodelled(call, collection as string);
  return unknownSegment(call, collection ?? '');
}

/** Graph collections that exist but that the `entra` source does not read. */
const GRAPH_ELSEWHERE = [
  '$batch',
  'applications',
  'contacts',
  'devices',
  'directory',
  'directoryObjects',
  'me',
  'organization',
];

function getObject(call: GraphCall, kind: ObjectKind, key: string, entitySet: string): Reply {
  const operation: Operation = kind === 'user' ? 'users' : kind === 'group' ? 'groups' : 'servicePrincipals';
  if (!allows(call.token.roles, operation)) return forbidden(call);
  refuseUnmodelled(call.options, ['$expand']);
  const select = selection(call.options, [kind]);
  const object: DirectoryObject | undefined = call.tenant.directory.find(key, kind);
  if (!object) return notFound(call, key);
  const body = {
    '@odata.context': `${context(call, entitySet, select)}/$entity`,
    ...listJson(object, select),
  };
  return { status: 200, body };
}

function appIdToId(call: GraphCall, appId: string): string | undefined {
  const { directory } = call.tenant;
  for (const id of directory.servicePrincipals) {
    const sp = directory.find(id, 'servicePrincipal');
    if (sp?.props.appId === appId) return id;
  }
  return undefined;
}

function isDelta(segment: string): boolean {
  return segment === 'delta' || segment === 'microsoft.graph.delta' || segment === 'delta()';
}

function unknownSegment(call: GraphCall, segment: string): Reply {
  return fail(call, 400, 'BadRequest', `Resource not found for the segment '${segment}'.`);
}

function unmodelled(call: GraphCall, what: string): Reply {
  return fail(call, 501, 'NotImplemented', `The emulation does not model ${what}.`);
}

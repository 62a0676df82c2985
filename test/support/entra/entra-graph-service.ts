import type { IncomingHttpHeaders } from 'node:http';
import type { AccessTokens } from './entra-access-tokens.js';
import type { EntraClock } from './entra-clock.js';
import type { DeltaEndpoint } from './entra-delta.js';
import { retryAfterOf, type Faults } from './entra-faults.js';
import type { GraphCall } from './entra-graph-call.js';
import { routeGraph } from './entra-graph-routes.js';
import type { ListSettings } from './entra-lists.js';
import { QueryError, queryOptions } from './entra-query.js';
import { graphError, type Reply, type RequestIds } from './entra-replies.js';
import type { StateTokens } from './entra-state-token.js';
import type { EntraTenant } from './entra-tenant.js';
import { requestCost, type ResourceUnitBuckets } from './entra-throttle.js';

/**
 * Graph's side of the emulation, in the order a request meets it: the bearer token (401
 * InvalidAuthenticationToken when absent, unknown or expired), the tenant's replication catch-up,
 * scripted faults (429 / 503 / 504), the resource-unit bucket of the app+tenant pair (429), the
 * method (reads only), then the route.
 */
export interface GraphService {
  clock: EntraClock;
  tokens: AccessTokens;
  tenants: Map<string, EntraTenant>;
  faults: Faults;
  buckets: ResourceUnitBuckets;
  stateTokens: StateTokens;
  delta: DeltaEndpoint;
  lists: ListSettings;
  linkBase(): string;
}

export interface GraphRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  ids: RequestIds;
}

const WWW_AUTHENTICATE =
  'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", ' +
  'client_id="00000003-0000-0000-c000-000000000000"';

export function answerGraph(
  service: GraphService,
  request: GraphRequest,
): { reply: Reply; clientId?: string; tenantId?: string } {
  const bearer = service.tokens.check(request.headers.authorization);
  if ('problem' in bearer) return { reply: unauthenticated(service, request.ids, bearer.problem) };
  const { token } = bearer;
  const who = { clientId: token.clientId, tenantId: token.tenantId };
  const tenant = service.tenants.get(token.tenantId) as EntraTenant;
  tenant.settle();
  const fault = service.faults.pick('graph');
  if (fault) {
    const reply = faultReply(service, request.ids, fault.status, retryAfterOf(fault), token.clientId, tenant);
    return { reply, ...who };
  }
  let parts: { segments: string[]; options: Map<string, string> };
  try {
    parts = {
      segments: request.url.pathname.split('/').slice(1).map(decodeSegment),
      options: queryOptions(request.url),
    };
  } catch (error) {
    return { reply: queryFailure(service, request.ids, error), ...who };
  }
  const [version, ...path] = parts.segments;
  const { options } = parts;
  const pair = `${tenant.id}/${token.clientId}`;
  const drawn = service.buckets.draw(pair, requestCost(path, options), tenant.directory.users.size);
  const reply =
    drawn.retryAfter === undefined
      ? route(service, request, { version: version ?? '', path, options, tenant, token })
      : faultReply(service, request.ids, 429, drawn.retryAfter, token.clientId, tenant);
  return { reply: { ...reply, headers: { ...drawn.headers, ...reply.headers } }, ...who };
}

function unauthenticated(
  service: GraphService,
  ids: RequestIds,
  problem: 'empty' | 'invalid' | 'expired',
): Reply {
  const message = {
    empty: 'Access token is empty.',
    invalid: 'CompactToken parsing failed with error code: 80049217',
    expired: 'Access token has expired or is not yet valid.',
  }[problem];
  const headers = { 'www-authenticate': WWW_AUTHENTICATE };
  return graphError(service.clock, ids, 401, 'InvalidAuthenticationToken', message, headers);
}

function route(
  service: GraphService,
  request: GraphRequest,
  parts: Pick<GraphCall, 'path' | 'options' | 'tenant' | 'token'> & { version: string },
): Reply {
  const { clock, ids } = { clock: service.clock, ids: request.ids };
  if (request.method !== 'GET') {
    return graphError(
      clock,
      ids,
      405,
      'Request_BadRequest',
      'Specified HTTP method is not allowed for the request target.',
    );
  }
  if (parts.version !== 'v1.0') {
    return graphError(
      clock,
      ids,
      400,
      'BadRequest',
      `Invalid version: ${parts.version} (the emulation serves v1.0).`,
    );
  }
  const call: GraphCall = {
    ...parts,
    url: request.url,
    headers: request.headers,
    ids,
    clock,
    stateTokens: service.stateTokens,
    linkBase: service.linkBase(),
  };
  try {
    return routeGraph(call, service.lists, service.delta);
  } catch (error) {
    return queryFailure(service, ids, error);
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new QueryError(400, 'BadRequest', `The path segment '${segment}' is not valid percent-encoding.`);
  }
}

function queryFailure(service: GraphService, ids: RequestIds, error: unknown): Reply {
  if (!(error instanceof QueryError)) throw error;
  return graphError(service.clock, ids, error.status, error.code, error.message);
}

function faultReply(
  service: GraphService,
  ids: RequestIds,
  status: number,
  retryAfter: number | null,
  clientId: string,
  tenant: EntraTenant,
): Reply {
  const headers: Record<string, string> = retryAfter === null ? {} : { 'retry-after': String(retryAfter) };
  if (status === 429) {
    headers['x-ms-throttle-scope'] = `Tenant_Application/ReadWrite/${clientId}/${tenant.id}`;
    headers['x-ms-throttle-information'] = 'ResourceUnitLimitExceeded';
    const message = `Too many requests from Identifier:${tenant.id}+${clientId} under category:throttle.aad.ags.tenant+app. Please try again later.`;
    return graphError(service.clock, ids, 429, 'TooManyRequests', message, headers);
  }
  if (status === 503) {
    return graphError(
      service.clock,
      ids,
      503,
      'serviceNotAvailable',
      'The service is temporarily unavailable. Try again later.',
      headers,
    );
  }
  return graphError(
    service.clock,
    ids,
    504,
    'UnknownError',
    'The gateway did not receive a timely response from the service.',
    headers,
  );
}

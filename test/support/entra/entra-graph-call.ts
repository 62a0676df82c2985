import type { IncomingHttpHeaders } from 'node:http';
import type { AccessToken } from './entra-access-tokens.js';
import type { EntraClock } from './entra-clock.js';
import { graphError, type Reply, type RequestIds } from './entra-replies.js';
import type { StateTokens } from './entra-state-token.js';
import type { EntraTenant } from './entra-tenant.js';

/** One authenticated Graph request, as the routes read it. */
export interface GraphCall {
  tenant: EntraTenant;
  token: AccessToken;
  url: URL;
  /** The path after `/v1.0`, decoded segment by segment. */
  path: string[];
  options: Map<string, string>;
  headers: IncomingHttpHeaders;
  ids: RequestIds;
  clock: EntraClock;
  stateTokens: StateTokens;
  /** Where links point: Graph's origin, or the origin a test substitutes. */
  linkBase: string;
}

export function fail(call: GraphCall, status: number, code: string, message: string): Reply {
  return graphError(call.clock, call.ids, status, code, message);
}

export function notFound(call: GraphCall, id: string): Reply {
  return fail(
    call,
    404,
    'Request_ResourceNotFound',
    `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
  );
}

export function forbidden(call: GraphCall): Reply {
  return fail(call, 403, 'Authorization_RequestDenied', 'Insufficient privileges to complete the operation.');
}

export function badSkipToken(call: GraphCall): Reply {
  return fail(call, 400, 'Request_BadRequest', 'Invalid Skip Token.');
}

/** `@odata.context`: `…/$metadata#users` or, with `$select`, `#users(displayName,mail)`. */
export function context(call: GraphCall, entitySet: string, select?: readonly string[]): string {
  const projection = select ? `(${select.join(',')})` : '';
  return `${call.linkBase}/v1.0/$metadata#${entitySet}${projection}`;
}

/** A query string as Graph writes its links: `$select=id,displayName&$skiptoken=…`. */
export function formatQuery(params: Iterable<[string, string]>): string {
  const part = (text: string) =>
    encodeURIComponent(text).replace(/%2C/gi, ',').replace(/%24/g, '$').replace(/%27/g, "'");
  return [...params].map(([name, value]) => `${part(name)}=${part(value)}`).join('&');
}

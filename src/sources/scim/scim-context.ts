import type { Request } from 'express';
import type { Signal } from '../../domain/desired-change.js';
import type { DesiredStateQueries } from '../../store/desired-state.queries.js';
import type { DesiredStateApi } from '../desired-state.api.js';
import type { KeyedLock } from './keyed-lock.js';
import { invalid } from './scim-errors.js';
import { isObject, type JsonObject } from './scim-json.js';

/** What the /Users and /Groups handlers share. */
export interface ScimContext {
  readonly api: DesiredStateApi;
  readonly queries: DesiredStateQueries;
  readonly locks: KeyedLock;
  /** The shared (Redis) clock: `meta` times match what the store stamps. */
  now(): number;
  /** The absolute URL of /scim/v2 as the client reached it (for `meta.location`, `Location`). */
  base(req: Request): string;
}

export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** RFC 7644 §3.4.2: a page of results; `itemsPerPage` is the number of resources in this page. */
export function listResponse(resources: JsonObject[], total: number, startIndex: number): JsonObject {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** Where a change came from, for the identity's history: the SCIM method and path. */
export function scimSignal(req: Request): Signal {
  return { source: 'scim', detail: `${req.method} ${req.path}` };
}

/** The query of a request as a plain object (pinned by scim-router.ts). */
export function queryOf(req: Request): JsonObject {
  const query: unknown = req.query;
  return isObject(query) ? query : {};
}

/** A resource body: a JSON object (RFC 7644 §3.3, §3.5.1). */
export function resourceBody(req: Request): JsonObject {
  const body: unknown = req.body;
  if (!isObject(body)) {
    throw invalid('invalidSyntax', `The body of ${req.method} must be a JSON object holding the resource`);
  }
  return body;
}

import type { FilterNode } from '../../domain/scim-filter.js';
import { parseDialectFilter } from './dialect.js';
import { parseProjection, type Projection } from './projection.js';
import { invalid } from './scim-errors.js';
import { isObject, keyOf, type JsonObject } from './scim-json.js';
import { MAX_RESULTS, type ResourceSpec } from './scim-schema.js';

/**
 * The parameters of a list (GET with a query, RFC 7644 §3.4.2) or a search (POST .search, §3.4.3):
 * filter, 1-based startIndex (below 1 is 1), count (below 0 is 0, above maxResults is maxResults,
 * default 100), attributes / excludedAttributes. sortBy is ignored (sort is not supported, §3.4.2.3).
 * Unknown parameters, such as Entra's `aadOptscim062020` flag, are ignored.
 */

export const DEFAULT_COUNT = 100;

export interface ListRequest {
  filter?: FilterNode;
  startIndex: number;
  count: number;
  projection: Projection;
}

/** The projection of a single-resource answer (GET by id, POST, PUT, PATCH): RFC 7644 §3.9. */
export function projectionFromQuery(spec: ResourceSpec, query: JsonObject): Projection {
  return parseProjection(spec, names(param(query, 'attributes')), names(param(query, 'excludedAttributes')));
}

export function listRequestFromQuery(spec: ResourceSpec, query: JsonObject): ListRequest {
  const filter = param(query, 'filter');
  return {
    ...(filter === undefined || filter.trim() === '' ? {} : { filter: parseDialectFilter(filter) }),
    startIndex: integer(param(query, 'startIndex'), 'startIndex', 1),
    count: integer(param(query, 'count'), 'count', DEFAULT_COUNT),
    projection: projectionFromQuery(spec, query),
  };
}

/** RFC 7644 §3.4.3: the same parameters in a SearchRequest body; attribute lists are arrays. */
export function listRequestFromSearch(spec: ResourceSpec, body: unknown): ListRequest {
  if (!isObject(body))
    throw invalid('invalidSyntax', 'The body must be a SearchRequest message (RFC 7644 §3.4.3)');
  const field = (name: string): unknown => body[keyOf(body, name) ?? name];
  const filter = field('filter');
  if (filter !== undefined && typeof filter !== 'string')
    throw invalid('invalidFilter', '"filter" must be a string');
  return {
    ...(filter === undefined || filter.trim() === '' ? {} : { filter: parseDialectFilter(filter) }),
    startIndex: integer(field('startIndex'), 'startIndex', 1),
    count: integer(field('count'), 'count', DEFAULT_COUNT),
    projection: parseProjection(spec, names(field('attributes')), names(field('excludedAttributes'))),
  };
}

function param(query: JsonObject, name: string): string | undefined {
  const key = keyOf(query, name);
  const value = key === undefined ? undefined : query[key];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function names(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(',');
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return undefined;
}

function integer(value: unknown, name: 'startIndex' | 'count', fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(number)) throw invalid('invalidValue', `"${name}" must be an integer`);
  if (name === 'startIndex') return Math.max(number, 1);
  return Math.min(Math.max(number, 0), MAX_RESULTS);
}

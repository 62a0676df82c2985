import type { FilterNode } from '../../domain/scim-filter.js';
import { parseDialectFilter } from './dialect.js';
import { parseProjection, type Projection } from './projection.js';
import { invalid } from './scim-errors.js';
import { isObject, keyOf, type JsonObject } from './scim-json.js';
import { MAX_RESULTS, type ResourceSpec } from './scim-schema.js';

/**
 * The parameters of a list (GET with a query, RFC 7644 §3.4.2) or a search (POST .search, §3.4.3):
 * filter, startIndex, count, attributes / excludedAttributes. sortBy is ignored (sort is not
 * supported, §3.4.2.3). Unknown parameters, such as Entra's `aadOptscim062020` flag, are ignored.
 *
 * Bounds (RFC 7644 §3.4.2.4 for the paging numbers; the README lists them): startIndex and count
 * are integers — decimal digits in a query, JSON integers in a SearchRequest — or 400 invalidValue;
 * startIndex below 1 is 1 and above MAX_START_INDEX is refused (400 invalidValue); count below 0 is
 * 0 and above maxResults is maxResults (default 100). attributes / excludedAttributes list at most
 * MAX_ATTRIBUTE_NAMES names of at most MAX_ATTRIBUTE_NAME_LENGTH characters each (400 invalidValue
 * beyond). The filter's own bounds are FILTER_LIMITS (400 invalidFilter).
 */

export const DEFAULT_COUNT = 100;
/** The largest startIndex accepted: a 32-bit signed integer, far beyond any identity count. */
export const MAX_START_INDEX = 2_147_483_647;
export const MAX_ATTRIBUTE_NAMES = 200;
export const MAX_ATTRIBUTE_NAME_LENGTH = 300;

export interface ListRequest {
  filter?: FilterNode;
  startIndex: number;
  count: number;
  projection: Projection;
}

/** The parameters of a list, before they are read for one resource type. */
export interface ListParameters {
  filter?: FilterNode;
  startIndex: number;
  count: number;
  attributes?: string[];
  excludedAttributes?: string[];
}

/** The projection of a single-resource answer (GET by id, POST, PUT, PATCH): RFC 7644 §3.9. */
export function projectionFromQuery(spec: ResourceSpec, query: JsonObject): Projection {
  return parseProjection(
    spec,
    names(param(query, 'attributes'), 'attributes'),
    names(param(query, 'excludedAttributes'), 'excludedAttributes'),
  );
}

export function listRequestFromQuery(spec: ResourceSpec, query: JsonObject): ListRequest {
  const filter = param(query, 'filter');
  return {
    ...(filter === undefined || filter.trim() === '' ? {} : { filter: parseDialectFilter(filter) }),
    startIndex: startIndexOf(param(query, 'startIndex')),
    count: countOf(param(query, 'count')),
    projection: projectionFromQuery(spec, query),
  };
}

/** RFC 7644 §3.4.3: the same parameters in a SearchRequest body; attribute lists are arrays. */
export function searchParameters(body: unknown): ListParameters {
  if (!isObject(body))
    throw invalid('invalidSyntax', 'The body must be a SearchRequest message (RFC 7644 §3.4.3)');
  const field = (name: string): unknown => body[keyOf(body, name) ?? name];
  const filter = field('filter');
  if (filter !== undefined && filter !== null && typeof filter !== 'string')
    throw invalid('invalidFilter', '"filter" must be a string');
  const attributes = names(field('attributes'), 'attributes');
  const excludedAttributes = names(field('excludedAttributes'), 'excludedAttributes');
  return {
    ...(typeof filter !== 'string' || filter.trim() === '' ? {} : { filter: parseDialectFilter(filter) }),
    startIndex: startIndexOf(field('startIndex')),
    count: countOf(field('count')),
    ...(attributes ? { attributes } : {}),
    ...(excludedAttributes ? { excludedAttributes } : {}),
  };
}

export function listRequestFromSearch(spec: ResourceSpec, body: unknown): ListRequest {
  const { attributes, excludedAttributes, ...parameters } = searchParameters(body);
  return { ...parameters, projection: parseProjection(spec, attributes, excludedAttributes) };
}

function param(query: JsonObject, name: string): string | undefined {
  const key = keyOf(query, name);
  const value = key === undefined ? undefined : query[key];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function names(value: unknown, name: 'attributes' | 'excludedAttributes'): string[] | undefined {
  let list: string[];
  if (typeof value === 'string') list = value.split(',', MAX_ATTRIBUTE_NAMES + 1);
  else if (Array.isArray(value)) list = value.filter((item): item is string => typeof item === 'string');
  else return undefined;
  if (list.length > MAX_ATTRIBUTE_NAMES) {
    throw invalid('invalidValue', `"${name}" lists more than ${MAX_ATTRIBUTE_NAMES} attribute names`);
  }
  if (list.some((item) => item.length > MAX_ATTRIBUTE_NAME_LENGTH)) {
    throw invalid(
      'invalidValue',
      `"${name}" holds a name longer than ${MAX_ATTRIBUTE_NAME_LENGTH} characters: no attribute has one`,
    );
  }
  return list;
}

const DECIMAL = /^[+-]?\d+$/;

/**
 * An integer parameter: a JSON number, or decimal digits in a query (`0x10`, `1e3` and `1.0` are
 * not integers a client writes). Huge digit strings read as ±Infinity, which the bounds then handle.
 */
function integer(value: unknown, name: 'startIndex' | 'count'): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'string' ? value.trim() : undefined;
  const number =
    typeof value === 'number' ? value : text !== undefined && DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(number) || (Number.isFinite(number) && !Number.isInteger(number))) {
    throw invalid('invalidValue', `"${name}" must be an integer`);
  }
  return number;
}

/** RFC 7644 §3.4.2.4: "A value less than 1 SHALL be interpreted as 1"; beyond the bound, 400. */
function startIndexOf(value: unknown): number {
  const number = integer(value, 'startIndex') ?? 1;
  if (number > MAX_START_INDEX) {
    throw invalid('invalidValue', `"startIndex" must be at most ${MAX_START_INDEX}`);
  }
  return Math.max(number, 1);
}

/** RFC 7644 §3.4.2.4: a negative count is 0; above maxResults the server returns maxResults. */
function countOf(value: unknown): number {
  const number = integer(value, 'count') ?? DEFAULT_COUNT;
  return Math.min(Math.max(number, 0), MAX_RESULTS);
}

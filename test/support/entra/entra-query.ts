import type { IncomingHttpHeaders } from 'node:http';
import { propertyOf, USER_SINGLE_ONLY, type ObjectKind } from './entra-objects.js';

/**
 * The OData system query options of a Graph request (query-parameters.md). Option names are
 * matched ignoring case; giving one twice, or one the emulation does not know, is refused.
 */

export class QueryError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const KNOWN = [
  '$select',
  '$filter',
  '$top',
  '$count',
  '$skiptoken',
  '$deltatoken',
  '$orderby',
  '$expand',
  '$search',
  '$skip',
  '$format',
];

export function queryOptions(url: URL): Map<string, string> {
  const options = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (!name.startsWith('$')) continue;
    const key = name.toLowerCase();
    if (!KNOWN.includes(key))
      throw new QueryError(400, 'BadRequest', `Query option '${name}' is not supported.`);
    if (options.has(key)) {
      throw new QueryError(
        400,
        'BadRequest',
        `Query option '${key}' was specified more than once, but it must be specified at most once.`,
      );
    }
    options.set(key, value);
  }
  if (options.has('$skip'))
    throw new QueryError(400, 'Request_BadRequest', "'$skip' is not supported by the service.");
  return options;
}

/** `$top`: 1 to 999 for directory collections (user-list.md, group-list-members.md). */
export function pageSize(options: Map<string, string>, fallback: number): number {
  const raw = options.get('$top');
  if (raw === undefined) return fallback;
  const top = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(top >= 1 && top <= 999)) {
    throw new QueryError(
      400,
      'Request_UnsupportedQuery',
      `Invalid page size specified: '${raw}'. Must be between 1 and 999 inclusive.`,
    );
  }
  return top;
}

/**
 * `$select` over objects of `kinds` (a directoryObject collection spans several): canonical names
 * in the order given, or undefined for the default projection. `extra` names navigation
 * properties the endpoint accepts (`members` on groups/delta).
 */
export function selection(
  options: Map<string, string>,
  kinds: ObjectKind[],
  extra: string[] = [],
): string[] | undefined {
  const raw = options.get('$select');
  if (raw === undefined) return undefined;
  const names = raw.split(',').map((name) => name.trim());
  if (names.some((name) => name === ''))
    throw new QueryError(400, 'BadRequest', `Invalid $select: '${raw}'.`);
  return names.map((name) => {
    const known = extra.find((e) => e.toLowerCase() === name.toLowerCase());
    if (known) return known;
    for (const kind of kinds) {
      const property = propertyOf(kind, name);
      if (property) return property;
    }
    if (kinds.includes('user') && USER_SINGLE_ONLY.some((p) => p.toLowerCase() === name.toLowerCase())) {
      throw new QueryError(501, 'NotImplemented', 'This operation target is not yet supported.');
    }
    const type = kinds.length === 1 ? `microsoft.graph.${kinds[0]}` : 'microsoft.graph.directoryObject';
    throw new QueryError(
      400,
      'Request_BadRequest',
      `Could not find a property named '${name}' on type '${type}'.`,
    );
  });
}

/**
 * Whether the request is an advanced query (aad-advanced-queries.md): the
 * `ConsistencyLevel: eventual` header together with `$count=true`.
 */
export function isAdvanced(options: Map<string, string>, headers: IncomingHttpHeaders): boolean {
  return (
    String(headers.consistencylevel ?? '').toLowerCase() === 'eventual' && options.get('$count') === 'true'
  );
}

/** Options Graph supports that the emulation does not model: refused plainly (501), never ignored. */
export function refuseUnmodelled(options: Map<string, string>, names: string[]): void {
  for (const name of names) {
    if (options.has(name)) {
      throw new QueryError(501, 'NotImplemented', `The emulation does not model ${name} on this endpoint.`);
    }
  }
}

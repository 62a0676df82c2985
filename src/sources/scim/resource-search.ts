import type { IdentityKind } from '../../domain/identity.js';
import {
  canonicalPath,
  logicalOperands,
  matchesFilter,
  someNode,
  type FilterNode,
} from '../../domain/scim-filter.js';
import type { DesiredStateQueries } from '../../store/desired-state.queries.js';
import type { JsonObject } from './scim-json.js';
import type { ResourceSpec } from './scim-schema.js';

/**
 * Lists answered from the desired state (RFC 7644 §3.4.2), never from the target. Equality
 * look-ups on indexed attributes (what IdPs send: `userName eq`, `externalId eq`, `emails.value eq`,
 * `id eq`, `displayName eq`, `members.value eq`, and `and`/`or` combinations of them) read the Redis
 * indexes; every other filter is evaluated on each identity in creation order. Results come in the
 * stable creation order either way, so pages never overlap or skip.
 *
 * Bounded work per request: the filter itself is capped (FILTER_LIMITS, checked by the parser), its
 * `and` / `or` chains are walked in loops, index look-ups run LOOKUP_CONCURRENCY at a time, and ids
 * are placed and loaded CHUNK at a time, so no request sends Redis an unbounded command or holds
 * the stack in proportion to its filter.
 */

export interface SearchSource<R> {
  readonly kind: IdentityKind;
  readonly spec: ResourceSpec;
  /** Records by id (undefined where absent); `related` loads members or groups. */
  load(ids: readonly string[], related: boolean): Promise<(R | undefined)[]>;
  /** The full SCIM representation, which filters are evaluated on. */
  represent(record: R): JsonObject;
  /**
   * The index of an attribute (a canonical path, see `canonicalPath`): the ids it holds for
   * `attribute eq value`; undefined when the attribute has no index.
   */
  index(attribute: string): ((value: string) => Promise<string[]>) | undefined;
  /** The attribute (lower-cased) that needs `related` records: `groups` or `members`. */
  readonly relatedAttribute: string;
}

export interface SearchRequest {
  filter?: FilterNode;
  startIndex: number;
  count: number;
  /** Whether the answer shows the related attribute (load it for the page). */
  related: boolean;
}

export interface SearchResult<R> {
  total: number;
  records: R[];
}

/** Ids placed (ZMSCORE) or loaded (one pipeline) at a time. */
const CHUNK = 500;
/** Index look-ups of one request in flight at once. */
const LOOKUP_CONCURRENCY = 16;

interface Lookup {
  index: (value: string) => Promise<string[]>;
  value: string;
}

export async function search<R>(
  source: SearchSource<R>,
  queries: DesiredStateQueries,
  request: SearchRequest,
): Promise<SearchResult<R>> {
  const filter = request.filter;
  if (!filter) {
    const page = await queries.page(source.kind, request.startIndex - 1, request.count);
    const records = await source.load(page.ids, request.related);
    return { total: page.total, records: records.filter((record) => record !== undefined) };
  }
  const related = request.related || mentions(filter, source.relatedAttribute);
  const lookups = indexedLookups(source, filter);
  if (!lookups) {
    return collect(source, request, filter, related, async (start) => {
      return (await queries.page(source.kind, start, CHUNK)).ids;
    });
  }
  const ordered = await inCreationOrder(queries, source.kind, await runLookups(lookups));
  // A lone indexed equality is exact: its candidates need no second look.
  const exact =
    filter.kind === 'compare' || (filter.kind === 'valuePath' && filter.filter.kind === 'compare');
  if (!exact) {
    return collect(source, request, filter, related, (start) =>
      Promise.resolve(ordered.slice(start, start + CHUNK)),
    );
  }
  const loaded = await source.load(window(ordered, request), request.related);
  return { total: ordered.length, records: loaded.filter((record) => record !== undefined) };
}

/**
 * Loads ids CHUNK at a time (`chunkAt(start)`, until a chunk comes back short), keeps those the
 * filter matches and returns the page the request asks for, with the number of matches.
 */
async function collect<R>(
  source: SearchSource<R>,
  request: SearchRequest,
  filter: FilterNode,
  related: boolean,
  chunkAt: (start: number) => Promise<string[]>,
): Promise<SearchResult<R>> {
  const records: R[] = [];
  let total = 0;
  for (let start = 0; ; start += CHUNK) {
    const ids = await chunkAt(start);
    for (const record of await source.load(ids, related)) {
      if (record === undefined || !matches(source, filter, record)) continue;
      if (total >= request.startIndex - 1 && records.length < request.count) records.push(record);
      total += 1;
    }
    if (ids.length < CHUNK) break;
  }
  return { total, records };
}

/** The desired ones of `ids`, without duplicates, in creation order (placed CHUNK at a time). */
async function inCreationOrder(
  queries: DesiredStateQueries,
  kind: IdentityKind,
  ids: readonly string[],
): Promise<string[]> {
  const unique = [...new Set(ids)];
  const positions = new Map<string, number>();
  for (let start = 0; start < unique.length; start += CHUNK) {
    const found = await queries.positions(kind, unique.slice(start, start + CHUNK));
    for (const [id, position] of found) positions.set(id, position);
  }
  return [...positions.keys()].sort((a, b) => (positions.get(a) ?? 0) - (positions.get(b) ?? 0));
}

/** The ids the look-ups find, LOOKUP_CONCURRENCY look-ups at a time. */
async function runLookups(lookups: readonly Lookup[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < lookups.length; start += LOOKUP_CONCURRENCY) {
    const batch = lookups.slice(start, start + LOOKUP_CONCURRENCY);
    const found = await Promise.all(batch.map((lookup) => lookup.index(lookup.value)));
    for (const list of found) for (const id of list) ids.push(id);
  }
  return ids;
}

function window<T>(items: readonly T[], request: SearchRequest): T[] {
  return items.slice(request.startIndex - 1, request.startIndex - 1 + request.count);
}

function matches<R>(source: SearchSource<R>, filter: FilterNode, record: R): boolean {
  return matchesFilter(filter, source.represent(record), { caseExact: source.spec.caseExact });
}

/**
 * The index look-ups whose results together hold every match, or undefined when some part needs a
 * scan. One operand of an `and` is enough; every operand of an `or` needs one. Recursion happens
 * only into parenthesised operands, so its depth is the filter's nesting (capped by the parser).
 */
function indexedLookups<R>(source: SearchSource<R>, node: FilterNode): Lookup[] | undefined {
  switch (node.kind) {
    case 'and':
      for (const operand of logicalOperands(node, 'and')) {
        const lookups = indexedLookups(source, operand);
        if (lookups) return lookups;
      }
      return undefined;
    case 'or': {
      const all: Lookup[] = [];
      for (const operand of logicalOperands(node, 'or')) {
        const lookups = indexedLookups(source, operand);
        if (!lookups) return undefined;
        all.push(...lookups);
      }
      return all;
    }
    case 'compare': {
      if (node.operator !== 'eq' || typeof node.value !== 'string') return undefined;
      const index = source.index(canonicalPath(node.path));
      return index ? [{ index, value: node.value }] : undefined;
    }
    case 'valuePath': {
      const value = valueEquality(node.filter);
      const index = value === undefined ? undefined : source.index(`${canonicalPath(node.path)}.value`);
      return index && value !== undefined ? [{ index, value }] : undefined;
    }
    default:
      return undefined;
  }
}

/** `value eq "x"` inside a value filter (alone or in an `and`), e.g. `emails[type eq "work" and value eq "x"]`. */
function valueEquality(node: FilterNode): string | undefined {
  for (const operand of logicalOperands(node, 'and')) {
    if (operand.kind !== 'compare' || operand.operator !== 'eq' || typeof operand.value !== 'string')
      continue;
    const path = operand.path;
    if (path.attribute.toLowerCase() === 'value' && path.subAttribute === undefined) return operand.value;
  }
  return undefined;
}

function mentions(node: FilterNode, attribute: string): boolean {
  return someNode(node, (part) => 'path' in part && part.path.attribute.toLowerCase() === attribute);
}

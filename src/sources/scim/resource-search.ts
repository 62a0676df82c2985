import type { IdentityKind } from '../../domain/identity.js';
import { canonicalPath, matchesFilter, type FilterNode } from '../../domain/scim-filter.js';
import type { DesiredStateQueries } from '../../store/desired-state.queries.js';
import type { JsonObject } from './scim-json.js';
import type { ResourceSpec } from './scim-schema.js';

/**
 * Lists answered from the desired state (RFC 7644 §3.4.2), never from the target. Equality
 * look-ups on indexed attributes (what IdPs send: `userName eq`, `externalId eq`, `emails.value eq`,
 * `id eq`, `displayName eq`, `members.value eq`, and `and`/`or` combinations of them) read the Redis
 * indexes; every other filter is evaluated on each identity in creation order. Results come in the
 * stable creation order either way, so pages never overlap or skip.
 */

export interface SearchSource<R> {
  readonly kind: IdentityKind;
  readonly spec: ResourceSpec;
  /** Records by id (undefined where absent); `related` loads members or groups. */
  load(ids: readonly string[], related: boolean): Promise<(R | undefined)[]>;
  /** The full SCIM representation, which filters are evaluated on. */
  represent(record: R): JsonObject;
  /** The ids an index holds for `attribute eq value`, or undefined when the attribute has no index. */
  lookup(attribute: string, value: string): Promise<string[]> | undefined;
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

const SCAN_CHUNK = 500;

export async function search<R>(
  source: SearchSource<R>,
  queries: DesiredStateQueries,
  request: SearchRequest,
): Promise<SearchResult<R>> {
  const offset = request.startIndex - 1;
  if (!request.filter) {
    const page = await queries.page(source.kind, offset, request.count);
    const records = await source.load(page.ids, request.related);
    return { total: page.total, records: records.filter((record) => record !== undefined) };
  }
  const filter = request.filter;
  const candidates = await indexedCandidates(source, filter);
  if (candidates) return searchCandidates(source, queries, request, filter, candidates);
  return scan(source, queries, request, filter);
}

async function searchCandidates<R>(
  source: SearchSource<R>,
  queries: DesiredStateQueries,
  request: SearchRequest,
  filter: FilterNode,
  candidates: readonly string[],
): Promise<SearchResult<R>> {
  const positions = await queries.positions(source.kind, [...new Set(candidates)]);
  const ordered = [...positions.keys()].sort((a, b) => (positions.get(a) ?? 0) - (positions.get(b) ?? 0));
  // A lone indexed equality is exact: its candidates need no second look.
  const exact =
    filter.kind === 'compare' || (filter.kind === 'valuePath' && filter.filter.kind === 'compare');
  const needsRelated = request.related || (!exact && mentions(filter, source.relatedAttribute));
  const loaded = await source.load(exact ? window(ordered, request) : ordered, needsRelated);
  if (exact) return { total: ordered.length, records: loaded.filter((record) => record !== undefined) };
  const matched = loaded.filter(
    (record): record is R => record !== undefined && matches(source, filter, record),
  );
  return { total: matched.length, records: window(matched, request) };
}

async function scan<R>(
  source: SearchSource<R>,
  queries: DesiredStateQueries,
  request: SearchRequest,
  filter: FilterNode,
): Promise<SearchResult<R>> {
  const related = request.related || mentions(filter, source.relatedAttribute);
  const records: R[] = [];
  let total = 0;
  for (let start = 0; ; start += SCAN_CHUNK) {
    const page = await queries.page(source.kind, start, SCAN_CHUNK);
    for (const record of await source.load(page.ids, related)) {
      if (record === undefined || !matches(source, filter, record)) continue;
      if (total >= request.startIndex - 1 && records.length < request.count) records.push(record);
      total += 1;
    }
    if (page.ids.length < SCAN_CHUNK) break;
  }
  return { total, records };
}

function window<T>(items: readonly T[], request: SearchRequest): T[] {
  return items.slice(request.startIndex - 1, request.startIndex - 1 + request.count);
}

function matches<R>(source: SearchSource<R>, filter: FilterNode, record: R): boolean {
  return matchesFilter(filter, source.represent(record), { caseExact: source.spec.caseExact });
}

/** The ids an indexed part of the filter allows, or undefined when some part needs a scan. */
async function indexedCandidates<R>(
  source: SearchSource<R>,
  node: FilterNode,
): Promise<string[] | undefined> {
  switch (node.kind) {
    case 'and':
      return (await indexedCandidates(source, node.left)) ?? indexedCandidates(source, node.right);
    case 'or': {
      const [left, right] = await Promise.all([
        indexedCandidates(source, node.left),
        indexedCandidates(source, node.right),
      ]);
      return left && right ? [...left, ...right] : undefined;
    }
    case 'compare':
      if (node.operator !== 'eq' || typeof node.value !== 'string') return undefined;
      return source.lookup(canonicalPath(node.path), node.value);
    case 'valuePath': {
      const value = valueEquality(node.filter);
      return value === undefined ? undefined : source.lookup(`${canonicalPath(node.path)}.value`, value);
    }
    default:
      return undefined;
  }
}

/** `value eq "x"` inside a value filter (alone or in an `and`), e.g. `emails[type eq "work" and value eq "x"]`. */
function valueEquality(node: FilterNode): string | undefined {
  if (node.kind === 'and') return valueEquality(node.left) ?? valueEquality(node.right);
  if (node.kind !== 'compare' || node.operator !== 'eq' || typeof node.value !== 'string') return undefined;
  return node.path.attribute.toLowerCase() === 'value' && node.path.subAttribute === undefined
    ? node.value
    : undefined;
}

function mentions(node: FilterNode, attribute: string): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return mentions(node.left, attribute) || mentions(node.right, attribute);
    case 'not':
      return mentions(node.filter, attribute);
    default:
      return node.path.attribute.toLowerCase() === attribute;
  }
}

import { attributeKey, matchesFilter, type MatchOptions } from './filter-match.js';
import type { FilterNode } from './filter-syntax.js';
import type { ResourceTable } from './resource-table.js';

/**
 * Answers a filter from secondary indexes when it can: an equality on an indexed attribute gives
 * the candidate ids, `and` takes the narrower side, `or` the union of two indexed sides. The
 * candidates are then checked against the whole filter, so an index only ever narrows, never
 * decides. Anything else scans the table.
 */

/** The ids an equality on a canonical attribute path (`username`, `members.value`) can match, if indexed. */
export type IndexLookup = (attribute: string, value: string) => ReadonlySet<string> | undefined;

export function indexedCandidates(node: FilterNode, lookup: IndexLookup): ReadonlySet<string> | undefined {
  const equality = stringEquality(node);
  if (equality !== undefined) return lookup(equality.attribute, equality.value);
  if (node.kind === 'and') {
    const left = indexedCandidates(node.left, lookup);
    const right = indexedCandidates(node.right, lookup);
    if (left === undefined || right === undefined) return left ?? right;
    return left.size <= right.size ? left : right;
  }
  if (node.kind === 'or') {
    const left = indexedCandidates(node.left, lookup);
    const right = indexedCandidates(node.right, lookup);
    if (left === undefined || right === undefined) return undefined;
    return new Set([...left, ...right]);
  }
  return undefined;
}

/**
 * `attr eq "…"`, or a value filter holding just such an equality on a sub-attribute
 * (`members[value eq "…"]`): the attribute key (`attributeKey`) and the value; anything else undefined.
 */
function stringEquality(node: FilterNode): { attribute: string; value: string } | undefined {
  if (node.kind === 'compare')
    return node.operator === 'eq' && typeof node.value === 'string'
      ? { attribute: attributeKey(node.path), value: node.value }
      : undefined;
  if (node.kind !== 'valuePath' || node.path.subAttribute !== undefined) return undefined;
  const inner = node.filter;
  if (inner.kind !== 'compare' || inner.path.schema !== undefined || inner.path.subAttribute !== undefined)
    return undefined;
  if (inner.operator !== 'eq' || typeof inner.value !== 'string') return undefined;
  return { attribute: attributeKey(inner.path, attributeKey(node.path)), value: inner.value };
}

export interface QueryResult<T> {
  totalResults: number;
  resources: T[];
}

/** RFC 7644 §3.4.2: the matching resources in creation order, `count` of them from zero-based `offset`. */
export function queryTable<T extends { id: string }>(
  table: ResourceTable<T>,
  query: { filter?: FilterNode; offset: number; count: number },
  lookup: IndexLookup,
  options: MatchOptions,
): QueryResult<T> {
  const { filter, offset, count } = query;
  if (filter === undefined) return { totalResults: table.size, resources: table.page(offset, count) };
  const candidates = indexedCandidates(filter, lookup);
  const matches = (resource: T): boolean => matchesFilter(filter, resource, options);
  const found = candidates === undefined ? table.filter(matches) : table.inOrder(candidates).filter(matches);
  return { totalResults: found.length, resources: found.slice(offset, offset + count) };
}

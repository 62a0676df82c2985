import { filterMatcher, type MatchOptions } from './filter-tester.js';
import type { ResourceTable } from './resource-table.js';
import { hasSubAttribute, keyOfPath, type TargetFilter } from './target-filter.js';

/**
 * Answers a filter from secondary indexes when it can: an equality on an indexed attribute gives
 * the candidate ids, `and` takes the narrower side, `or` the union of two indexed sides. The
 * candidates are then checked against the whole filter, so an index only ever narrows, never
 * decides. Anything else scans the table.
 */

/** The ids an equality on a canonical attribute path (`username`, `members.value`) can match, if indexed. */
export type IndexLookup = (attribute: string, value: string) => ReadonlySet<string> | undefined;

export function indexedCandidates(node: TargetFilter, lookup: IndexLookup): ReadonlySet<string> | undefined {
  const equality = stringEquality(node);
  if (equality !== undefined) return lookup(equality.attribute, equality.value);
  if (node.op === 'and') {
    let narrowest: ReadonlySet<string> | undefined;
    for (const filter of node.filters) {
      const candidates = indexedCandidates(filter, lookup);
      if (candidates !== undefined && (narrowest === undefined || candidates.size < narrowest.size))
        narrowest = candidates;
    }
    return narrowest;
  }
  if (node.op === 'or') {
    const union = new Set<string>();
    for (const filter of node.filters) {
      const candidates = indexedCandidates(filter, lookup);
      if (candidates === undefined) return undefined;
      for (const id of candidates) union.add(id);
    }
    return union;
  }
  return undefined;
}

/**
 * `attr eq "…"`, or a value filter holding just such an equality on a sub-attribute
 * (`members[value eq "…"]`): the attribute key (`keyOfPath`) and the value; anything else undefined.
 */
function stringEquality(node: TargetFilter): { attribute: string; value: string } | undefined {
  if (node.op === 'eq')
    return typeof node.compValue === 'string'
      ? { attribute: keyOfPath(node.attrPath), value: node.compValue }
      : undefined;
  if (node.op !== '[]' || hasSubAttribute(node.attrPath)) return undefined;
  const inner = node.valFilter;
  if (inner.op !== 'eq' || typeof inner.compValue !== 'string') return undefined;
  if (inner.attrPath.includes(':') || hasSubAttribute(inner.attrPath)) return undefined;
  return { attribute: keyOfPath(inner.attrPath, keyOfPath(node.attrPath)), value: inner.compValue };
}

export interface QueryResult<T> {
  totalResults: number;
  resources: T[];
}

/** RFC 7644 §3.4.2: the matching resources in creation order, `count` of them from zero-based `offset`. */
export function queryTable<T extends { id: string }>(
  table: ResourceTable<T>,
  query: { filter?: TargetFilter; offset: number; count: number },
  lookup: IndexLookup,
  options: MatchOptions,
): QueryResult<T> {
  const { filter, offset, count } = query;
  if (filter === undefined) return { totalResults: table.size, resources: table.page(offset, count) };
  const candidates = indexedCandidates(filter, lookup);
  const matches = filterMatcher(filter, options);
  const found = candidates === undefined ? table.filter(matches) : table.inOrder(candidates).filter(matches);
  return { totalResults: found.length, resources: found.slice(offset, offset + count) };
}

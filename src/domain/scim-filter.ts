import type { FilterNode } from './scim-filter-ast.js';
import { canonicalPath } from './scim-filter-match.js';

/**
 * SCIM filters and PATCH paths (RFC 7644 §3.4.2.2, §3.5.2): parse, evaluate, and build filter
 * literals safely. Pure: no I/O.
 */

export type {
  AttributePath,
  CompareNode,
  CompareOperator,
  FilterNode,
  FilterValue,
  LogicalNode,
  NotNode,
  PatchPath,
  PresentNode,
  ValuePathNode,
} from './scim-filter-ast.js';
export { FILTER_LIMITS } from './scim-filter-limits.js';
export { parseFilter, parsePath } from './scim-filter-parser.js';
export { logicalOperands, someNode } from './scim-filter-walk.js';
export {
  canonicalPath,
  isCoreSchema,
  lookupAttribute,
  matchesFilter,
  type MatchOptions,
} from './scim-filter-match.js';

/**
 * A SCIM string literal, quotes included. compValue strings are JSON strings (RFC 7644 §3.4.2.2,
 * RFC 7159 §7), so `"` and `\` are escaped and control characters encoded: a value can never end
 * the literal early or inject an operator.
 */
export function formatFilterString(value: string): string {
  return JSON.stringify(value);
}

export interface EqualityLookup {
  /** The canonical path (lower-cased, see `canonicalPath`): `username`, `externalid`, `members.value`. */
  attribute: string;
  value: string;
}

/**
 * The attribute and value of a filter that is one string equality — `attr eq "…"`, or a value path
 * with one equality such as `members[value eq "…"]` — so that a server can answer it from an index.
 * Anything else gives undefined.
 */
export function equalityLookup(node: FilterNode): EqualityLookup | undefined {
  if (node.kind === 'compare') {
    if (node.operator !== 'eq' || typeof node.value !== 'string') return undefined;
    return { attribute: canonicalPath(node.path), value: node.value };
  }
  if (node.kind === 'valuePath' && node.path.subAttribute === undefined) {
    const inner = equalityLookup(node.filter);
    if (inner === undefined || inner.attribute.includes('.')) return undefined;
    return { attribute: `${canonicalPath(node.path)}.${inner.attribute}`, value: inner.value };
  }
  return undefined;
}

/**
 * The syntax tree of SCIM filters (RFC 7644 §3.4.2.2) and PATCH paths (RFC 7644 §3.5.2). Pure data:
 * parsing lives in scim-filter-parser.ts, evaluation in scim-filter-match.ts.
 */

/** RFC 7644 §3.4.2.2, table 3: the attribute operators. */
export type CompareOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** RFC 7644 §3.4.2.2 compValue: false / null / true / number / string. */
export type FilterValue = string | number | boolean | null;

/** RFC 7644 §3.4.2.2 attrPath = [URI ":"] ATTRNAME *1subAttr. */
export interface AttributePath {
  /** The schema URN when the path was qualified with one (RFC 7644 §3.10), e.g. the enterprise extension. */
  schema?: string;
  attribute: string;
  subAttribute?: string;
}

export interface CompareNode {
  kind: 'compare';
  path: AttributePath;
  operator: CompareOperator;
  value: FilterValue;
}

/** `attrPath pr`: the attribute has a non-empty value. */
export interface PresentNode {
  kind: 'present';
  path: AttributePath;
}

export interface LogicalNode {
  kind: 'and' | 'or';
  left: FilterNode;
  right: FilterNode;
}

export interface NotNode {
  kind: 'not';
  filter: FilterNode;
}

/** `valuePath = attrPath "[" valFilter "]"`: the inner filter's paths are relative to each value. */
export interface ValuePathNode {
  kind: 'valuePath';
  path: AttributePath;
  filter: FilterNode;
}

export type FilterNode = CompareNode | PresentNode | LogicalNode | NotNode | ValuePathNode;

/**
 * RFC 7644 §3.5.2 `PATH = attrPath / valuePath [subAttr]`: `attr`, `attr.sub`, `attr[filter]`,
 * `attr[filter].sub`, each optionally URN-qualified.
 */
export interface PatchPath {
  schema?: string;
  attribute: string;
  /** After a dot (`name.givenName`) or after the value filter (`emails[type eq "work"].value`). */
  subAttribute?: string;
  /** The value selection filter, its paths relative to each value of `attribute`. */
  valueFilter?: FilterNode;
}

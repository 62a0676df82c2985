import type { AttributePath, CompareNode, FilterNode, FilterValue } from './scim-filter-ast.js';
import { logicalOperands } from './scim-filter-walk.js';

/**
 * Evaluates a parsed filter against a resource (RFC 7644 §3.4.2.2). Attribute names match
 * case-insensitively (RFC 7643 §2.1); string values compare case-insensitively unless the attribute
 * is caseExact (RFC 7643 §2.2); a multi-valued attribute matches when any of its values matches
 * (`ne` included: `emails.type ne "work"` holds for a user with a home address as well); a missing
 * attribute matches only `ne` and `eq null`. `and` / `or` chains are evaluated in a loop over their
 * operands (scim-filter-walk.ts), so the stack grows with the filter's nesting, not with its length.
 */

export interface MatchOptions {
  /**
   * Whether an attribute compares case-exactly. `attributePath` is lower-cased, without the schema
   * URN of a core schema: `externalid`, `emails.value`, `members.value`.
   */
  caseExact?: (attributePath: string) => boolean;
}

const CORE_SCHEMA = /^urn:ietf:params:scim:schemas:core:2\.0:/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The canonical form of a path handed to `caseExact` and returned by `equalityLookup`. */
export function canonicalPath(path: AttributePath, prefix?: string): string {
  const parts = [path.attribute, path.subAttribute].filter((part) => part !== undefined);
  const local = parts.join('.').toLowerCase();
  const qualified =
    path.schema !== undefined && !isCoreSchema(path.schema) ? `${path.schema.toLowerCase()}:${local}` : local;
  return prefix === undefined ? qualified : `${prefix}.${qualified}`;
}

export function isCoreSchema(schema: string): boolean {
  return CORE_SCHEMA.test(`${schema}:`);
}

export function matchesFilter(node: FilterNode, resource: unknown, options: MatchOptions = {}): boolean {
  return evaluate(node, resource, options, undefined);
}

function evaluate(
  node: FilterNode,
  context: unknown,
  options: MatchOptions,
  prefix: string | undefined,
): boolean {
  switch (node.kind) {
    case 'and':
      return logicalOperands(node, 'and').every((operand) => evaluate(operand, context, options, prefix));
    case 'or':
      return logicalOperands(node, 'or').some((operand) => evaluate(operand, context, options, prefix));
    case 'not':
      return !evaluate(node.filter, context, options, prefix);
    case 'present':
      return resolveValues(context, node.path).some(isPresent);
    case 'valuePath': {
      const inner = canonicalPath(node.path, prefix);
      return resolveElements(context, node.path).some((element) =>
        evaluate(node.filter, element, options, inner),
      );
    }
    case 'compare':
      return evaluateCompare(node, context, options, prefix);
  }
}

function evaluateCompare(
  node: CompareNode,
  context: unknown,
  options: MatchOptions,
  prefix?: string,
): boolean {
  const values = resolveValues(context, node.path);
  if (node.value === null) {
    // `eq null` asks for an unassigned attribute, `ne null` for an assigned one (RFC 7643 §2.5).
    const present = values.some(isPresent);
    return node.operator === 'ne' ? present : node.operator === 'eq' ? !present : false;
  }
  const implicitValue = node.path.subAttribute === undefined && values.some(isObject);
  const path = canonicalPath(implicitValue ? { ...node.path, subAttribute: 'value' } : node.path, prefix);
  const caseExact = options.caseExact?.(path) ?? false;
  const leaves = implicitValue
    ? values.flatMap((value) => (isObject(value) ? flatten(lookupAttribute(value, 'value')) : [value]))
    : values;
  // `ne` too matches when any value satisfies it (RFC 7644 §3.4.2.2: "the filter matches if any of
  // the values of the specified attribute match the specified criterion"); an attribute with no
  // value is null (RFC 7643 §2.5), which is not identical to any value.
  if (node.operator === 'ne')
    return leaves.length === 0 || leaves.some((leaf) => !compare(leaf, 'eq', node.value, caseExact));
  return leaves.some((leaf) => compare(leaf, node.operator, node.value, caseExact));
}

function compare(actual: unknown, operator: string, expected: FilterValue, caseExact: boolean): boolean {
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') return false;
    return compareStrings(actual, operator, expected, caseExact);
  }
  if (typeof expected === 'number') {
    return typeof actual === 'number' && ordered(actual - expected, operator);
  }
  return operator === 'eq' && actual === expected;
}

function compareStrings(actual: string, operator: string, expected: string, caseExact: boolean): boolean {
  const a = caseExact ? actual : actual.toLowerCase();
  const b = caseExact ? expected : expected.toLowerCase();
  switch (operator) {
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'ew':
      return a.endsWith(b);
    case 'eq':
      return a === b;
    default:
      // dateTime attributes order chronologically, other strings lexicographically (RFC 7644 §3.4.2.2).
      if (DATE_TIME.test(actual) && DATE_TIME.test(expected)) {
        return ordered(Date.parse(actual) - Date.parse(expected), operator);
      }
      return ordered(a < b ? -1 : a > b ? 1 : 0, operator);
  }
}

function ordered(difference: number, operator: string): boolean {
  switch (operator) {
    case 'eq':
      return difference === 0;
    case 'gt':
      return difference > 0;
    case 'ge':
      return difference >= 0;
    case 'lt':
      return difference < 0;
    case 'le':
      return difference <= 0;
    default:
      return false;
  }
}

/** The values an attribute path reaches, multi-valued attributes flattened. */
function resolveValues(context: unknown, path: AttributePath): unknown[] {
  const elements = resolveElements(context, path);
  const sub = path.subAttribute;
  if (sub === undefined) return elements;
  return elements.flatMap((element) => flatten(lookupAttribute(element, sub)));
}

function resolveElements(context: unknown, path: AttributePath): unknown[] {
  const base =
    path.schema === undefined || isCoreSchema(path.schema) ? context : lookupAttribute(context, path.schema);
  return flatten(lookupAttribute(base, path.attribute));
}

function flatten(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

/** Case-insensitive member lookup (RFC 7643 §2.1); exact spelling first, as it is the common case. */
export function lookupAttribute(container: unknown, name: string): unknown {
  if (!isObject(container)) return undefined;
  if (Object.hasOwn(container, name)) return container[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(container)) if (key.toLowerCase() === lower) return container[key];
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7644 §3.4.2.2 `pr`: a non-empty value, or a complex value with a non-empty member. */
function isPresent(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(isPresent);
  if (isObject(value)) return Object.values(value).some(isPresent);
  return true;
}

import { getAttribute, isObject } from './attribute-lookup.js';
import type { AttributePath, CompareOperator, FilterNode, FilterValue } from './filter-syntax.js';

/**
 * Evaluates a parsed filter against a resource, or against one value of a multi-valued attribute
 * (RFC 7644 §3.4.2.2):
 * - attribute names match in any case (RFC 7643 §2.1); a path qualified with a core schema URN
 *   names the resource's own attribute, one qualified with another URN an attribute of the
 *   extension object stored under that URN (RFC 7643 §3);
 * - strings compare case-insensitively unless the attribute is caseExact (RFC 7643 §2.2);
 * - a multi-valued attribute matches when any of its values does;
 * - a complex attribute must be compared through a sub-attribute: an object equals no literal;
 * - `eq null` asks for an unassigned attribute and `ne null` for an assigned one (RFC 7643 §2.5);
 *   otherwise `ne` matches exactly when `eq` does not, an absent attribute included.
 */

export interface MatchOptions {
  /** Whether strings of this attribute compare case-exactly; the key is `attributeKey`'s form. */
  caseExact?: (key: string) => boolean;
}

const CORE_SCHEMA_PREFIX = 'urn:ietf:params:scim:schemas:core:';
/** xsd:dateTime as RFC 7643 §2.3.5 uses it: such values order in time, not as text. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

export function isCoreSchema(urn: string): boolean {
  return urn.toLowerCase().startsWith(CORE_SCHEMA_PREFIX);
}

/**
 * The lower-cased dotted name of an attribute, as `caseExact` rules and indexes know it:
 * `username`, `members.value`; `within` is the multi-valued attribute a value filter selects in.
 * An extension attribute keeps its URN: `urn:…:enterprise:2.0:user:employeenumber`.
 */
export function attributeKey(path: AttributePath, within?: string): string {
  const local = [within, path.attribute, path.subAttribute].filter((part) => part !== undefined).join('.');
  const qualified =
    path.schema === undefined || isCoreSchema(path.schema) ? local : `${path.schema}:${local}`;
  return qualified.toLowerCase();
}

export function matchesFilter(filter: FilterNode, resource: unknown, options: MatchOptions = {}): boolean {
  return holds(filter, resource, undefined, options);
}

function holds(
  filter: FilterNode,
  subject: unknown,
  within: string | undefined,
  options: MatchOptions,
): boolean {
  switch (filter.kind) {
    case 'and':
      return holds(filter.left, subject, within, options) && holds(filter.right, subject, within, options);
    case 'or':
      return holds(filter.left, subject, within, options) || holds(filter.right, subject, within, options);
    case 'not':
      return !holds(filter.filter, subject, within, options);
    case 'present':
      return valuesAt(subject, filter.path).some(hasValue);
    case 'valuePath': {
      const key = attributeKey(filter.path, within);
      return valuesAt(subject, filter.path).some((value) => holds(filter.filter, value, key, options));
    }
    case 'compare': {
      const values = valuesAt(subject, filter.path);
      if (filter.value === null) return comparesWithNull(filter.operator, values.some(hasValue));
      const caseExact = options.caseExact?.(attributeKey(filter.path, within)) ?? false;
      if (filter.operator === 'ne')
        return !values.some((value) => compare(value, 'eq', filter.value, caseExact));
      return values.some((value) => compare(value, filter.operator, filter.value, caseExact));
    }
  }
}

function comparesWithNull(operator: CompareOperator, assigned: boolean): boolean {
  if (operator === 'eq') return !assigned;
  if (operator === 'ne') return assigned;
  return false;
}

/** Every value a path reaches in `subject`, the values of multi-valued attributes one by one. */
function valuesAt(subject: unknown, path: AttributePath): unknown[] {
  const container =
    path.schema === undefined || isCoreSchema(path.schema) ? subject : getAttribute(subject, path.schema);
  const values = asList(getAttribute(container, path.attribute));
  const sub = path.subAttribute;
  return sub === undefined ? values : values.flatMap((value) => asList(getAttribute(value, sub)));
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

/** RFC 7644 §3.4.2.2 `pr`: a non-empty value, or a complex value with a non-empty sub-attribute. */
function hasValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(hasValue);
  if (isObject(value)) return Object.values(value).some(hasValue);
  return true;
}

function compare(
  actual: unknown,
  operator: CompareOperator,
  expected: FilterValue,
  caseExact: boolean,
): boolean {
  if (typeof expected === 'string')
    return typeof actual === 'string' && compareStrings(actual, operator, expected, caseExact);
  if (typeof expected === 'number') return typeof actual === 'number' && inOrder(actual - expected, operator);
  return operator === 'eq' && actual === expected;
}

function compareStrings(
  actual: string,
  operator: CompareOperator,
  expected: string,
  caseExact: boolean,
): boolean {
  const left = caseExact ? actual : actual.toLowerCase();
  const right = caseExact ? expected : expected.toLowerCase();
  switch (operator) {
    case 'eq':
      return left === right;
    case 'co':
      return left.includes(right);
    case 'sw':
      return left.startsWith(right);
    case 'ew':
      return left.endsWith(right);
    default:
      if (DATE_TIME.test(actual) && DATE_TIME.test(expected))
        return inOrder(Date.parse(actual) - Date.parse(expected), operator);
      return inOrder(left < right ? -1 : left > right ? 1 : 0, operator);
  }
}

/** Whether a difference (actual − expected) satisfies an ordering operator. */
function inOrder(difference: number, operator: CompareOperator): boolean {
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

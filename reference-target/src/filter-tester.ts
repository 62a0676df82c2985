import { Tester, type Compare, type Filter } from 'scim2-parse-filter';
import { hasSubAttribute, keyOfPath, type TargetFilter } from './target-filter.js';

/**
 * Evaluates a filter from target-filter.ts with scim2-parse-filter's Tester: it walks attribute
 * paths (names in any case, RFC 7643 §2.1; a schema URN up to the last colon, RFC 7644 §3.10;
 * every value of a multi-valued attribute) and combines `and`, `or` and `not`, and its operator
 * methods compare two values of one type. Where the library departs from RFC 7644 §3.4.2.2 this
 * subclass takes over:
 * - strings compare case-insensitively unless the attribute is caseExact (RFC 7643 §2.2), and
 *   date-times order in time (§3.4.2.2 gt: "for DateTime types, it is a chronological comparison");
 *   values of different types never compare (the library's `co` turns numbers into strings);
 * - a multi-valued attribute matches when any of its values does: the library hands its operators
 *   the whole array when the path ends at one (`schemas eq "…"` could never match);
 * - a value filter `emails[type eq "work" and value co "@"]` holds for one value at a time; the
 *   library tests each condition against all the values, so two values could satisfy it together;
 * - `pr` wants a non-empty value (the library counts "", null, [] and {}); `eq null` asks for an
 *   unassigned attribute and `ne null` for an assigned one, and an unassigned attribute is not
 *   equal to any value (RFC 7643 §2.5: unassigned and null are the same state);
 * - a complex attribute compared without a sub-attribute is compared by its `value` (§3.4.2.2's
 *   own example `emails co "example.com"`).
 */

export interface MatchOptions {
  /** Whether strings of an attribute compare case-exactly; the key is `keyOfPath`'s form. */
  caseExact?: (key: string) => boolean;
}

/** xsd:dateTime with a zone (RFC 7643 §2.3.5): values that order in time rather than as text. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const ORDER_OPERATORS: ReadonlySet<string> = new Set(['gt', 'ge', 'lt', 'le']);

type Value = Exclude<Compare['compValue'], null>;

interface CaseRule {
  /** Whether the compared attribute is caseExact. */
  exact: boolean;
  /** Whether its `value` sub-attribute is, for a complex attribute compared without one. */
  valueExact: boolean;
  /** Whether the path stops at an attribute (so a complex value is compared by its `value`). */
  implicitValue: boolean;
}

/** A predicate for the filter, its case rules worked out once for all the resources it tests. */
export function filterMatcher(
  filter: TargetFilter,
  options: MatchOptions = {},
): (resource: unknown) => boolean {
  const rules = new Map<Compare, CaseRule>();
  collectRules(filter, options.caseExact ?? (() => false), undefined, rules);
  const tester = new RuleTester(rules);
  return (resource) => tester.test(resource, filter);
}

export function matchesFilter(filter: TargetFilter, resource: unknown, options: MatchOptions = {}): boolean {
  return filterMatcher(filter, options)(resource);
}

function collectRules(
  node: Filter,
  caseExact: (key: string) => boolean,
  within: string | undefined,
  rules: Map<Compare, CaseRule>,
): void {
  switch (node.op) {
    case 'and':
    case 'or':
      for (const filter of node.filters) collectRules(filter, caseExact, within, rules);
      return;
    case 'not':
      return collectRules(node.filter, caseExact, within, rules);
    case '[]':
      return collectRules(node.valFilter, caseExact, keyOfPath(node.attrPath, within), rules);
    case 'pr':
      return;
    default: {
      // Inside a value filter the path already names a sub-attribute (RFC 7643 §2.3.8: no deeper).
      const key = keyOfPath(node.attrPath, within);
      const implicitValue = within === undefined && !hasSubAttribute(node.attrPath);
      const valueExact = implicitValue && caseExact(`${key}.value`);
      rules.set(node, { exact: caseExact(key), valueExact, implicitValue });
    }
  }
}

class RuleTester extends Tester {
  private readonly paths = new Map<string, string[]>();

  constructor(private readonly rules: ReadonlyMap<Compare, CaseRule>) {
    super();
  }

  override attrPath(path: string): string[] {
    let split = this.paths.get(path);
    if (split === undefined) {
      split = super.attrPath(path);
      this.paths.set(path, split);
    }
    return split;
  }

  override test(subject: unknown, filter: Filter): boolean {
    switch (filter.op) {
      case 'and':
      case 'or':
      case 'not':
        return super.test(subject, filter);
      case '[]':
        return this.valuesAt(subject, filter.attrPath).some((value) => this.test(value, filter.valFilter));
      case 'pr':
        return this.valuesAt(subject, filter.attrPath).some(hasValue);
      default:
        return this.compare(subject, filter);
    }
  }

  /** Every value `path` reaches in `subject`, those of multi-valued attributes one by one. */
  private valuesAt(subject: unknown, path: string): unknown[] {
    const values: unknown[] = [];
    this.attrTest(this.attrPath(path), subject, (found: unknown) => {
      for (const value of Array.isArray(found) ? (found as unknown[]) : [found])
        if (value !== undefined && value !== null) values.push(value);
      return false;
    });
    return values;
  }

  private compare(subject: unknown, filter: Compare): boolean {
    const rule = this.rules.get(filter) ?? { exact: false, valueExact: false, implicitValue: false };
    let values = this.valuesAt(subject, filter.attrPath);
    let exact = rule.exact;
    if (rule.implicitValue && values.some(isObject)) {
      values = values.flatMap((value) => (isObject(value) ? this.valuesAt(value, 'value') : [value]));
      exact = rule.valueExact;
    }
    const expected = filter.compValue;
    if (expected === null) return filter.op === 'eq' ? !values.some(hasValue) : values.some(hasValue);
    if (filter.op === 'ne')
      return values.length === 0 || values.some((v) => !this.holds(v, 'eq', expected, exact));
    return values.some((value) => this.holds(value, filter.op, expected, exact));
  }

  /** The library's operator on two values of one type, strings folded or dated as the RFC says. */
  private holds(actual: unknown, op: Compare['op'], expected: Value, exact: boolean): boolean {
    if (typeof actual !== typeof expected) return false;
    if (typeof actual !== 'string' || typeof expected !== 'string') return this[op](actual, expected);
    if (ORDER_OPERATORS.has(op) && DATE_TIME.test(actual) && DATE_TIME.test(expected))
      return this[op](Date.parse(actual), Date.parse(expected));
    return exact ? this[op](actual, expected) : this[op](actual.toLowerCase(), expected.toLowerCase());
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7644 §3.4.2.2 `pr`: a non-empty value, or a complex value with a non-empty sub-attribute. */
function hasValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(hasValue);
  if (isObject(value)) return Object.values(value).some(hasValue);
  return true;
}

import { matchesFilter } from './filter-match.js';
import type { FilterNode, PatchPath } from './filter-syntax.js';
import { findAttribute, type AttributeDefinition } from './resource-schemas.js';
import { badRequest } from './scim-errors.js';

/** The values of multi-valued attributes under PATCH (RFC 7644 §3.5.2), selected by value filters. */

export type MutableResource = Record<string, unknown>;

export interface PatchTarget {
  /** The path as the client wrote it, for error messages. */
  text: string;
  attribute: AttributeDefinition;
  subAttribute?: AttributeDefinition;
  valueFilter?: PatchPath['valueFilter'];
}

export function isRecord(value: unknown): value is MutableResource {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The array of a multi-valued attribute, to change in place; empty when unassigned. */
export function valuesOf(resource: MutableResource, attribute: AttributeDefinition): unknown[] {
  const values = resource[attribute.name];
  return Array.isArray(values) ? (values as unknown[]) : [];
}

/** RFC 7644 §3.5.2.2: a multi-valued attribute with no values left is unassigned. */
export function setValues(
  resource: MutableResource,
  attribute: AttributeDefinition,
  values: unknown[],
): void {
  if (values.length === 0) delete resource[attribute.name];
  else resource[attribute.name] = values;
}

/** A complex value with its sub-attribute names spelt as the schema spells them (RFC 7643 §2.1). */
export function canonicalValue(value: unknown, attribute: AttributeDefinition): unknown {
  if (attribute.type !== 'complex' || !isRecord(value)) return value;
  const canonical: MutableResource = {};
  for (const [key, member] of Object.entries(value)) {
    canonical[findAttribute(attribute.subAttributes, key)?.name ?? key] = member;
  }
  return canonical;
}

/** Two values of a multi-valued attribute are the same value when their `value` sub-attributes are equal. */
export function sameValue(
  a: unknown,
  b: unknown,
  attribute: AttributeDefinition,
  caseExact: (path: string) => boolean,
): boolean {
  const left = isRecord(a) ? a.value : a;
  const right = isRecord(b) ? canonicalValue(b, attribute) : b;
  const rightValue = isRecord(right) ? right.value : right;
  if (typeof left !== 'string' || typeof rightValue !== 'string')
    return left !== undefined && left === rightValue;
  const path = attribute.type === 'complex' ? `${attribute.name}.value` : attribute.name;
  return caseExact(path.toLowerCase())
    ? left === rightValue
    : left.toLowerCase() === rightValue.toLowerCase();
}

/**
 * RFC 7644 §3.5.2: setting one value's `primary` to true sets it to false on every other value.
 * `touched` are the values this operation wrote.
 */
export function enforceSinglePrimary(values: unknown[], touched: readonly unknown[]): void {
  if (!touched.some((value) => isRecord(value) && value.primary === true)) return;
  for (const value of values) {
    if (isRecord(value) && value.primary === true && !touched.includes(value)) value.primary = false;
  }
}

/**
 * `attr[filter]` and `attr[filter].sub` (RFC 7644 §3.5.2.1-3). replace with no matching value is a
 * 400 noTarget (§3.5.2.3); add with no matching value creates one from the filter's equalities, as
 * Entra ID expects for `emails[type eq "work"].value`; remove with no match changes nothing.
 */
export function applyToSelection(
  resource: MutableResource,
  op: 'add' | 'remove' | 'replace',
  target: PatchTarget,
  value: unknown,
  caseExact: (path: string) => boolean,
): void {
  const { attribute, subAttribute, valueFilter } = target;
  if (valueFilter === undefined) return;
  const prefix = attribute.name.toLowerCase();
  const options = { caseExact: (path: string) => caseExact(`${prefix}.${path}`) };
  const values = valuesOf(resource, attribute);
  let matches = values.filter((element) => isRecord(element) && matchesFilter(valueFilter, element, options));
  if (op === 'remove') {
    if (subAttribute === undefined)
      setValues(
        resource,
        attribute,
        values.filter((element) => !matches.includes(element)),
      );
    else for (const match of matches) if (isRecord(match)) delete match[subAttribute.name];
    return;
  }
  if (matches.length === 0) {
    const created = op === 'add' ? valueFromFilter(valueFilter, attribute) : undefined;
    if (created === undefined)
      throw badRequest('noTarget', `"${target.text}" matches no value of ${attribute.name}`);
    values.push(created);
    matches = [created];
  }
  for (const match of matches)
    if (isRecord(match)) writeMatch(match, op, subAttribute, value, target, attribute);
  setValues(resource, attribute, values);
  enforceSinglePrimary(values, matches);
}

function writeMatch(
  match: MutableResource,
  op: 'add' | 'replace',
  subAttribute: AttributeDefinition | undefined,
  value: unknown,
  target: PatchTarget,
  attribute: AttributeDefinition,
): void {
  if (subAttribute !== undefined) {
    match[subAttribute.name] = value;
    return;
  }
  const incoming = canonicalValue(value, attribute);
  if (!isRecord(incoming)) throw badRequest('invalidValue', `"${target.text}" needs an object value`);
  if (op === 'replace') for (const key of Object.keys(match)) delete match[key];
  Object.assign(match, incoming);
}

/** The value `type eq "work" and display eq "x"` describes, or undefined when the filter is not such a conjunction. */
function valueFromFilter(filter: FilterNode, attribute: AttributeDefinition): MutableResource | undefined {
  if (filter.kind === 'and') {
    const left = valueFromFilter(filter.left, attribute);
    const right = valueFromFilter(filter.right, attribute);
    return left === undefined || right === undefined ? undefined : { ...left, ...right };
  }
  if (filter.kind !== 'compare' || filter.operator !== 'eq' || filter.path.subAttribute !== undefined)
    return undefined;
  const sub = findAttribute(attribute.subAttributes, filter.path.attribute);
  return sub === undefined || filter.value === null ? undefined : { [sub.name]: filter.value };
}

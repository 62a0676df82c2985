import { invalid } from './scim-errors.js';
import { isObject, isUnassigned, type JsonObject } from './scim-json.js';
import { extensionOf, type AttributeSpec, type AttributeType, type ResourceSpec } from './scim-schema.js';

/**
 * Checks a resource (after the dialect normaliser) against its schema and returns it in canonical
 * form: attribute names spelled as the schema spells them (names match case-insensitively, RFC 7643
 * §2.1), extension attributes under the extension's URN, and without what a client cannot set:
 * read-only attributes (`id`, `meta`, `groups`: ignored, RFC 7644 §3.5.1), `schemas` (the server
 * writes it), unknown attributes, unassigned values (null, [], RFC 7643 §2.5) and write-only ones
 * (`password`, accepted and dropped: the bridge never stores it). A value of the wrong type is a
 * 400 invalidValue naming every offending attribute (never its value).
 */

const EXPECTED: Record<AttributeType, string> = {
  string: 'a string',
  reference: 'a string (URI)',
  binary: 'a string (base64)',
  boolean: 'true or false',
  integer: 'an integer',
  decimal: 'a number',
  dateTime: 'a date-time string (RFC 3339)',
  complex: 'an object',
};

const MAX_LISTED_PROBLEMS = 10;

export function coerceResource(spec: ResourceSpec, body: JsonObject): JsonObject {
  const problems: string[] = [];
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    const extension = extensionOf(spec, key);
    if (extension) {
      if (!isObject(value)) {
        if (!isUnassigned(value)) problems.push(`${extension.id}: expected an object`);
        continue;
      }
      const members = coerceMembers(extension.attributes, value, `${extension.id}:`, problems);
      if (Object.keys(members).length > 0) out[extension.id] = members;
      continue;
    }
    const attribute = spec.core.attributes.get(key.toLowerCase());
    if (!attribute || attribute.readOnly || attribute.neverReturned) continue;
    const coerced = coerceValue(attribute, value, attribute.name, problems);
    if (coerced !== undefined) out[attribute.name] = coerced;
  }
  if (problems.length > 0) throw invalid('invalidValue', describeProblems(problems));
  return out;
}

/**
 * The writable attributes a resource body names, whatever their values (canonical names; an
 * extension by its URN). A PUT replaces what it names: one named with null or [] is asserted
 * unassigned (RFC 7643 §2.5) and ends empty, though coerceResource drops its value. One the body
 * leaves out is not asserted (RFC 7644 §3.5.1): the kind's rules say whether it stays.
 */
export function assertedAttributes(spec: ResourceSpec, body: JsonObject): ReadonlySet<string> {
  const asserted = new Set<string>();
  for (const key of Object.keys(body)) {
    const extension = extensionOf(spec, key);
    const attribute = extension ? undefined : spec.core.attributes.get(key.toLowerCase());
    if (extension) asserted.add(extension.id);
    else if (attribute && !attribute.readOnly) asserted.add(attribute.name);
  }
  return asserted;
}

function describeProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join('; ');
  const more =
    problems.length > MAX_LISTED_PROBLEMS ? ` (and ${problems.length - MAX_LISTED_PROBLEMS} more)` : '';
  return `Invalid attribute values: ${listed}${more}`;
}

function coerceMembers(
  attributes: ReadonlyMap<string, AttributeSpec>,
  value: JsonObject,
  prefix: string,
  problems: string[],
): JsonObject {
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const attribute = attributes.get(key.toLowerCase());
    if (!attribute || attribute.readOnly || attribute.neverReturned) continue;
    const coerced = coerceValue(attribute, item, `${prefix}${attribute.name}`, problems);
    if (coerced !== undefined) out[attribute.name] = coerced;
  }
  return out;
}

function coerceValue(attribute: AttributeSpec, value: unknown, path: string, problems: string[]): unknown {
  if (value === undefined || value === null) return undefined;
  if (attribute.multiValued) {
    // A single value where a list is expected is taken as a list of one.
    const items = Array.isArray(value) ? (value as unknown[]) : [value];
    const out = items
      .map((item, index) => coerceSingle(attribute, item, `${path}[${index}]`, problems))
      .filter((item) => item !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (Array.isArray(value)) {
    problems.push(`${path}: expected a single value, not a list`);
    return undefined;
  }
  return coerceSingle(attribute, value, path, problems);
}

function coerceSingle(attribute: AttributeSpec, value: unknown, path: string, problems: string[]): unknown {
  if (value === undefined || value === null) return undefined;
  switch (attribute.type) {
    case 'complex':
      if (isObject(value)) {
        const members = coerceMembers(attribute.sub, value, `${path}.`, problems);
        return Object.keys(members).length > 0 ? members : undefined;
      }
      break;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      break;
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      break;
    case 'decimal':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      break;
    case 'dateTime':
      if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
      break;
    default:
      // string, reference, binary: numbers and booleans are taken as their text.
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  }
  problems.push(`${path}: expected ${EXPECTED[attribute.type]}`);
  return undefined;
}

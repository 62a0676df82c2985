import { scimPatch, InvalidScimPatchRequest, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { stringify } from 'scim2-parse-filter';
import { getAttribute } from './attribute-lookup.js';
import { filterMatcher } from './filter-tester.js';
import type { PatchOperation, PatchOperationName } from './patch-message.js';
import { resolvePatchPath, type PatchTarget } from './patch-path.js';
import {
  caseExactRule,
  findAttribute,
  type AttributeDefinition,
  type ResourceSchema,
} from './resource-schemas.js';
import { badRequest } from './target-errors.js';
import type { TargetFilter } from './target-filter.js';

/**
 * RFC 7644 §3.5.2 PATCH, applied by scim-patch to a mutable copy of a resource; the caller then
 * validates the result as it would a PUT body, so a PATCH that leaves the resource invalid fails
 * whole and changes nothing. This adapter resolves each path against the schema first
 * (patch-path.ts), hands the library one operation at a time with canonical names, and turns
 * whatever it throws into a 400. Where scim-patch departs from the RFC or from what clients send:
 * - without a path, each member of the value is applied as its own path, so a complex attribute
 *   keeps the sub-attributes the value leaves out (§3.5.2.1, §3.5.2.3) and dotted keys such as
 *   Entra's "name.givenName" work;
 * - the values a value filter selects are chosen by the target's filter evaluation (strings in
 *   any case unless caseExact, RFC 7643 §2.2), not by the library's exact comparison: they are
 *   marked, and the library is given a filter on the mark;
 * - replace through a value filter that matches nothing is 400 noTarget (§3.5.2.3), never an add;
 *   replace of a selected value replaces it whole (§3.5.2.3), where the library would merge;
 * - remove of "members" with the values to remove (Entra ID) removes by their `value`;
 * - setting `primary` on one value sets it to false on the others (§3.5.2).
 */

export type MutableResource = Record<string, unknown>;

interface Context {
  schema: ResourceSchema;
  caseExact: (key: string) => boolean;
}

/** An attribute no schema defines, held only while an operation runs. */
const MARK = 'referenceTargetSelected';

export function applyPatch(
  resource: MutableResource,
  operations: readonly PatchOperation[],
  schema: ResourceSchema,
): void {
  const context: Context = { schema, caseExact: caseExactRule(schema) };
  for (const operation of operations) applyOperation(resource, operation, context);
}

function applyOperation(resource: MutableResource, operation: PatchOperation, context: Context): void {
  if (operation.path !== undefined) {
    const target = resolvePatchPath(operation.path, context.schema, false);
    if (target !== undefined) applyToTarget(resource, operation.op, target, operation.value, context);
    return;
  }
  // RFC 7644 §3.5.2.2: remove without a path fails with noTarget.
  if (operation.op === 'remove') throw badRequest('noTarget', 'remove needs a path');
  if (!isRecord(operation.value))
    throw badRequest(
      'invalidValue',
      `${operation.op} without a path needs an object of attributes as its value`,
    );
  for (const [key, value] of Object.entries(operation.value)) {
    const target = resolvePatchPath(key, context.schema, true);
    if (target !== undefined) applyToTarget(resource, operation.op, target, value, context);
  }
}

function applyToTarget(
  resource: MutableResource,
  op: PatchOperationName,
  target: PatchTarget,
  value: unknown,
  context: Context,
): void {
  const { attribute, subAttribute, valueFilter } = target;
  // RFC 7644 §3.5.2.2: removing a required attribute fails with mutability.
  if (op === 'remove' && subAttribute === undefined && valueFilter === undefined && attribute.required)
    throw badRequest('mutability', `${attribute.name} is required and cannot be removed`);
  if (subAttribute !== undefined && attribute.multiValued && valueFilter === undefined) {
    const name = attribute.name;
    throw badRequest(
      'invalidPath',
      `"${target.text}": select values of ${name} with a filter, e.g. ${name}[value eq "…"].${subAttribute.name}`,
    );
  }
  const primaries = primaryValues(resource, attribute);
  if (valueFilter !== undefined) {
    applyToSelection(resource, op, target, valueFilter, value, context);
  } else if (op === 'remove' && attribute.multiValued && value !== undefined && value !== null) {
    removeListedValues(resource, target, value, context);
  } else {
    const path = subAttribute === undefined ? attribute.name : `${attribute.name}.${subAttribute.name}`;
    const incoming = op === 'remove' || subAttribute !== undefined ? value : libraryValue(value, attribute);
    runLibrary(resource, { op, path, value: op === 'remove' ? undefined : incoming }, target.text);
  }
  keepOnePrimary(resource, attribute, primaries);
}

/** `attr[filter]` and `attr[filter].sub` (RFC 7644 §3.5.2.1-3). */
function applyToSelection(
  resource: MutableResource,
  op: PatchOperationName,
  target: PatchTarget,
  valueFilter: TargetFilter,
  value: unknown,
  context: Context,
): void {
  const { attribute, subAttribute } = target;
  const prefix = attribute.name.toLowerCase();
  const matches = filterMatcher(valueFilter, { caseExact: (key) => context.caseExact(`${prefix}.${key}`) });
  const selected = valuesOf(resource, attribute).filter(
    (item): item is MutableResource => isRecord(item) && matches(item),
  );
  const after = subAttribute === undefined ? '' : `.${subAttribute.name}`;
  if (selected.length === 0) {
    if (op === 'remove') return;
    // Only an add of a sub-attribute goes on: scim-patch then creates the value a single equality
    // describes, as Entra ID expects for `emails[type eq "work"].value` (no match for any other).
    if (op === 'replace' || subAttribute === undefined)
      throw badRequest('noTarget', `${JSON.stringify(target.text)} matches no value of ${attribute.name}`);
    runLibrary(
      resource,
      { op, path: `${attribute.name}[${stringify(valueFilter)}]${after}`, value },
      target.text,
    );
    return;
  }
  // One selected value is replaced or added to by one complex value, not by an array of them.
  const incoming = subAttribute === undefined && op !== 'remove' ? canonicalValue(value, attribute) : value;
  for (const item of selected) {
    if (op === 'replace' && subAttribute === undefined && isRecord(incoming))
      for (const key of Object.keys(item)) if (!(key in incoming)) delete item[key];
    item[MARK] = true;
  }
  try {
    const path = `${attribute.name}[${MARK} eq true]${after}`;
    runLibrary(resource, { op, path, value: op === 'remove' ? undefined : incoming }, target.text);
  } finally {
    for (const item of valuesOf(resource, attribute)) if (isRecord(item)) delete item[MARK];
  }
}

/** Entra ID's remove of "members" listing the values to remove: each is removed by its `value`. */
function removeListedValues(
  resource: MutableResource,
  target: PatchTarget,
  value: unknown,
  context: Context,
): void {
  for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
    const wanted = isRecord(item) ? getAttribute(item, 'value') : item;
    if (typeof wanted !== 'string' && typeof wanted !== 'number' && typeof wanted !== 'boolean') continue;
    const valueFilter: TargetFilter = { op: 'eq', attrPath: 'value', compValue: wanted };
    applyToSelection(resource, 'remove', { ...target, valueFilter }, valueFilter, undefined, context);
  }
}

function runLibrary(
  resource: MutableResource,
  operation: { op: PatchOperationName; path: string; value: unknown },
  pathText: string,
): void {
  const { op, path, value } = operation;
  const libraryOperation = (value === undefined ? { op, path } : { op, path, value }) as ScimPatchOperation;
  try {
    scimPatch(resource as unknown as ScimResource, [libraryOperation], {
      mutateDocument: true,
      treatMissingAsAdd: false,
    });
  } catch (error) {
    throw libraryError(error, pathText);
  }
}

/** scim-patch's errors carry `scimCode` (noTarget, invalidSyntax); anything else it throws is the value's fault. */
function libraryError(error: unknown, pathText: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  const detail = `${JSON.stringify(pathText)}: ${message}`;
  const code =
    typeof error === 'object' && error !== null ? (error as { scimCode?: unknown }).scimCode : undefined;
  if (code === 'noTarget') return badRequest('noTarget', detail);
  if (error instanceof InvalidScimPatchRequest) return badRequest('invalidSyntax', detail);
  return badRequest('invalidValue', detail);
}

/**
 * The value as the library should add it: a multi-valued attribute's value is an array (a single
 * value is one element), and a complex value's sub-attributes are spelt as the schema spells them.
 */
function libraryValue(value: unknown, attribute: AttributeDefinition): unknown {
  if (!attribute.multiValued) return canonicalValue(value, attribute);
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.map((item) => canonicalValue(item, attribute));
}

function canonicalValue(value: unknown, attribute: AttributeDefinition): unknown {
  if (attribute.type !== 'complex' || !isRecord(value)) return value;
  const canonical: MutableResource = {};
  for (const [key, member] of Object.entries(value))
    canonical[findAttribute(attribute.subAttributes, key)?.name ?? key] = member;
  return canonical;
}

function valuesOf(resource: MutableResource, attribute: AttributeDefinition): unknown[] {
  const values = resource[attribute.name];
  return Array.isArray(values) ? (values as unknown[]) : [];
}

/** The values of a multi-valued attribute whose `primary` is true before an operation. */
function primaryValues(resource: MutableResource, attribute: AttributeDefinition): ReadonlySet<unknown> {
  return new Set(valuesOf(resource, attribute).filter((item) => isRecord(item) && item.primary === true));
}

/**
 * RFC 7644 §3.5.2: a value the operation made primary makes the others not primary. Two values
 * the operation itself made primary are left for validation to refuse (RFC 7643 §2.4).
 */
function keepOnePrimary(
  resource: MutableResource,
  attribute: AttributeDefinition,
  before: ReadonlySet<unknown>,
): void {
  const primary = valuesOf(resource, attribute).filter(
    (item): item is MutableResource => isRecord(item) && item.primary === true,
  );
  if (primary.length < 2 || primary.every((item) => before.has(item))) return;
  for (const item of primary) if (before.has(item)) item.primary = false;
}

function isRecord(value: unknown): value is MutableResource {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

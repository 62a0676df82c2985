import { parsePath } from './filter-parser.js';
import type { PatchPath } from './filter-syntax.js';
import type { PatchOperation } from './patch-request.js';
import {
  applyToSelection,
  canonicalValue,
  enforceSinglePrimary,
  isRecord,
  sameValue,
  setValues,
  valuesOf,
  type MutableResource,
  type PatchTarget,
} from './patch-values.js';
import {
  caseExactRule,
  findAttribute,
  isOwnSchema,
  type AttributeDefinition,
  type ResourceSchema,
} from './resource-schemas.js';
import { badRequest } from './scim-errors.js';

export type { MutableResource } from './patch-values.js';

/**
 * RFC 7644 §3.5.2 PATCH, applied to a mutable copy of a resource. The caller validates the result
 * as it would a PUT body, so a PATCH that leaves the resource invalid fails whole and changes
 * nothing. Read-only attributes named by a path are a 400 mutability; inside a path-less value
 * they are ignored, as in PUT (RFC 7644 §3.5.1).
 */

export interface PatchContext {
  schema: ResourceSchema;
  caseExact: (attributePath: string) => boolean;
}

export function patchContext(schema: ResourceSchema): PatchContext {
  return { schema, caseExact: caseExactRule(schema) };
}

export function applyPatch(
  resource: MutableResource,
  operations: readonly PatchOperation[],
  context: PatchContext,
): void {
  for (const operation of operations) applyOperation(resource, operation, context);
}

function applyOperation(resource: MutableResource, operation: PatchOperation, context: PatchContext): void {
  if (operation.path !== undefined) {
    const target = resolveTarget(operation.path, context.schema, false);
    if (target !== undefined) applyToTarget(resource, operation.op, target, operation.value, context);
    return;
  }
  // RFC 7644 §3.5.2.2: remove without a path fails with noTarget.
  if (operation.op === 'remove') throw badRequest('noTarget', 'remove needs a path');
  if (!isRecord(operation.value)) {
    throw badRequest(
      'invalidValue',
      `${operation.op} without a path needs an object of attributes as its value`,
    );
  }
  // RFC 7644 §3.5.2.1/§3.5.2.3: without a path the value's members are attributes of the resource;
  // Entra also sends sub-attribute paths such as "name.givenName" as keys.
  for (const [key, value] of Object.entries(operation.value)) {
    const target = resolveTarget(key, context.schema, true);
    if (target !== undefined) applyToTarget(resource, operation.op, target, value, context);
  }
}

/** A PATCH path resolved against the schema; `lenient` skips what a path-less value may carry. */
function resolveTarget(text: string, schema: ResourceSchema, lenient: boolean): PatchTarget | undefined {
  let path: PatchPath;
  try {
    path = parsePath(text);
  } catch (error) {
    if (lenient) return undefined;
    throw error;
  }
  const attribute = isOwnSchema(schema, path.schema)
    ? findAttribute(schema.attributes, path.attribute)
    : undefined;
  const subAttribute =
    path.subAttribute === undefined ? undefined : findAttribute(attribute?.subAttributes, path.subAttribute);
  if (attribute === undefined || (path.subAttribute !== undefined && subAttribute === undefined)) {
    if (lenient) return undefined;
    throw badRequest('invalidPath', `"${text}" is not an attribute of ${schema.name}`);
  }
  if (path.valueFilter !== undefined && !attribute.multiValued) {
    throw badRequest('invalidPath', `"${text}": value filters select values of multi-valued attributes only`);
  }
  if (attribute.mutability === 'readOnly' || subAttribute?.mutability === 'readOnly') {
    if (lenient) return undefined;
    throw badRequest('mutability', `"${text}" is read-only`);
  }
  return {
    text,
    attribute,
    ...(subAttribute === undefined ? {} : { subAttribute }),
    ...(path.valueFilter === undefined ? {} : { valueFilter: path.valueFilter }),
  };
}

function applyToTarget(
  resource: MutableResource,
  op: PatchOperation['op'],
  target: PatchTarget,
  value: unknown,
  context: PatchContext,
): void {
  if (target.valueFilter !== undefined) {
    applyToSelection(resource, op, target, value, context.caseExact);
  } else if (target.subAttribute !== undefined) {
    applyToSubAttribute(resource, op, target, target.subAttribute, value);
  } else if (op === 'remove') {
    removeAttribute(resource, target.attribute, value, context.caseExact);
  } else if (target.attribute.multiValued) {
    addOrReplaceValues(resource, op, target.attribute, value, context.caseExact);
  } else {
    const name = target.attribute.name;
    const current = resource[name];
    const incoming = canonicalValue(value, target.attribute);
    // RFC 7644 §3.5.2.1/§3.5.2.3: sub-attributes of a complex attribute not in the value are kept.
    resource[name] = isRecord(current) && isRecord(incoming) ? { ...current, ...incoming } : incoming;
  }
}

function applyToSubAttribute(
  resource: MutableResource,
  op: PatchOperation['op'],
  target: PatchTarget,
  sub: AttributeDefinition,
  value: unknown,
): void {
  const name = target.attribute.name;
  if (target.attribute.multiValued) {
    throw badRequest(
      'invalidPath',
      `"${target.text}": select values of ${name} with a filter, e.g. ${name}[value eq "…"].${sub.name}`,
    );
  }
  const container: MutableResource = isRecord(resource[name]) ? resource[name] : {};
  if (op === 'remove') delete container[sub.name];
  else container[sub.name] = value;
  if (Object.keys(container).length === 0) delete resource[name];
  else resource[name] = container;
}

function removeAttribute(
  resource: MutableResource,
  attribute: AttributeDefinition,
  value: unknown,
  caseExact: (path: string) => boolean,
): void {
  // RFC 7644 §3.5.2.2: removing a required attribute fails with mutability.
  if (attribute.required)
    throw badRequest('mutability', `${attribute.name} is required and cannot be removed`);
  if (attribute.multiValued && value !== undefined && value !== null) {
    // Not in the RFC but sent by Entra ID: remove "members" with the values to remove.
    const doomed = Array.isArray(value) ? (value as unknown[]) : [value];
    const remaining = valuesOf(resource, attribute).filter(
      (element) => !doomed.some((candidate) => sameValue(element, candidate, attribute, caseExact)),
    );
    setValues(resource, attribute, remaining);
    return;
  }
  delete resource[attribute.name];
}

function addOrReplaceValues(
  resource: MutableResource,
  op: 'add' | 'replace',
  attribute: AttributeDefinition,
  value: unknown,
  caseExact: (path: string) => boolean,
): void {
  const incoming = (Array.isArray(value) ? (value as unknown[]) : [value]).map((item) =>
    canonicalValue(item, attribute),
  );
  if (op === 'replace') {
    setValues(resource, attribute, incoming);
    return;
  }
  // RFC 7644 §3.5.2.1: add appends; a value already there is not added twice.
  const values = valuesOf(resource, attribute);
  const touched: unknown[] = [];
  for (const item of incoming) {
    const existing = values.find((element) => sameValue(element, item, attribute, caseExact));
    if (existing === undefined) values.push(item);
    else if (isRecord(existing) && isRecord(item)) Object.assign(existing, item);
    touched.push(existing ?? item);
  }
  setValues(resource, attribute, values);
  enforceSinglePrimary(values, touched);
}

import { matchesFilter, type FilterNode } from '../../domain/scim-filter.js';
import type { PatchOperation } from './patch-operation.js';
import { invalid } from './scim-errors.js';
import { cloneJson, isObject, jsonEqual, keyOf, type JsonObject } from './scim-json.js';
import { extensionOf, findAttribute, type AttributeSpec, type ResourceSpec } from './scim-schema.js';

/**
 * Applies PATCH operations (RFC 7644 §3.5.2) to a resource in canonical form, all or nothing: the
 * operations work on a copy, and the first failure throws before anything is stored. Value filters
 * are evaluated with the bridge's own matcher (case-insensitive where the schema says so, escaped
 * quotes allowed, missing attributes simply not matching). Beyond the RFC, for the IdPs:
 *  - add/replace on a value-filtered path that matches nothing appends a new value built from the
 *    filter's equalities (Entra: `emails[type eq "work"].value` on a user without one);
 *  - remove with a `value` removes only the listed values (Entra's default member removal);
 *  - a null value removes the attribute (RFC 7643 §2.5: null is "unassigned"), and a replace with
 *    [] or {} leaves it unassigned;
 *  - a value filter on a single-valued complex attribute selects its value when it matches (Entra
 *    removes a manager with `manager[value eq "…"]`).
 * The result is checked against the schema afterwards (resource-coerce.ts).
 */
export function applyPatch(
  spec: ResourceSpec,
  resource: JsonObject,
  operations: readonly PatchOperation[],
): JsonObject {
  const target = cloneJson(resource);
  for (const operation of operations) applyOperation(spec, target, operation);
  return target;
}

interface Target {
  container: JsonObject;
  attribute: AttributeSpec;
  sub?: AttributeSpec;
  /** The attribute's canonical path, prefix of its sub-attributes' paths in caseExact lookups. */
  prefix: string;
}

function fail(operation: PatchOperation, scimType: 'invalidPath' | 'mutability', reason: string): never {
  throw invalid(
    scimType,
    `Operation ${operation.index} (${operation.op} "${operation.pathText}"): ${reason}`,
  );
}

function locate(spec: ResourceSpec, resource: JsonObject, operation: PatchOperation): Target | undefined {
  const { path } = operation;
  const extension = path.schema === undefined ? undefined : extensionOf(spec, path.schema);
  const core = path.schema === undefined || path.schema.toLowerCase() === spec.core.id.toLowerCase();
  if (!core && !extension) fail(operation, 'invalidPath', `unknown schema "${path.schema}"`);
  const attribute = findAttribute(spec, path.attribute, extension?.id);
  if (!attribute) fail(operation, 'invalidPath', `unknown attribute "${path.attribute}"`);
  if (attribute.readOnly) fail(operation, 'mutability', `"${attribute.name}" is read-only`);
  const sub =
    path.subAttribute === undefined ? undefined : attribute.sub.get(path.subAttribute.toLowerCase());
  if (path.subAttribute !== undefined && !sub) {
    fail(operation, 'invalidPath', `"${attribute.name}" has no sub-attribute "${path.subAttribute}"`);
  }
  if (sub?.readOnly) fail(operation, 'mutability', `"${attribute.name}.${sub.name}" is read-only`);
  if (path.valueFilter && !attribute.multiValued && attribute.type !== 'complex') {
    fail(
      operation,
      'invalidPath',
      `a value filter needs a multi-valued or complex attribute, "${attribute.name}" is neither`,
    );
  }
  let container = resource;
  if (extension) {
    const key = keyOf(resource, extension.id) ?? extension.id;
    if (!isObject(resource[key])) {
      if (operation.op === 'remove') return undefined;
      resource[key] = {};
    }
    container = resource[key] as JsonObject;
  }
  const name = attribute.name.toLowerCase();
  const prefix = extension ? `${extension.id.toLowerCase()}:${name}` : name;
  return { container, attribute, ...(sub ? { sub } : {}), prefix };
}

function applyOperation(spec: ResourceSpec, resource: JsonObject, operation: PatchOperation): void {
  const target = locate(spec, resource, operation);
  if (!target) return;
  const removes = operation.op === 'remove' || operation.value === null;
  const filter = operation.path.valueFilter;
  if (filter && !target.attribute.multiValued) applySingleFiltered(spec, target, operation, filter, removes);
  else if (filter) applyFiltered(spec, target, operation, filter, removes);
  else if (target.sub) applySub(target, target.sub, operation, removes);
  else applyWhole(spec, target, operation, removes);
  tidy(target.container, target.attribute);
}

/** `attr`: the whole attribute. */
function applyWhole(spec: ResourceSpec, target: Target, operation: PatchOperation, removes: boolean): void {
  const { container, attribute } = target;
  const key = attribute.name;
  const current = container[key];
  if (removes) {
    if (operation.op === 'remove' && operation.value !== undefined && attribute.multiValued) {
      const listed = asList(operation.value);
      container[key] = asList(current).filter(
        (item) => !listed.some((given) => sameValue(spec, target, item, given)),
      );
    } else {
      delete container[key];
    }
    return;
  }
  if (attribute.multiValued) {
    const values = asList(operation.value);
    container[key] = operation.op === 'add' ? appendNew(asList(current), values) : values;
    keepOnePrimary(container[key] as unknown[], values);
  } else if (attribute.type === 'complex' && isObject(current) && merges(operation.op, operation.value)) {
    // RFC 7644 §3.5.2.1/§3.5.2.3: sub-attributes not given are left unchanged.
    container[key] = { ...current, ...operation.value };
  } else {
    container[key] = operation.value;
  }
}

/**
 * Whether a value merges into the complex value held. A replace with {} names no sub-attribute to
 * keep the others for: it is unassigned (RFC 7643 §2.5) and tidy() drops it, as it drops [].
 */
function merges(op: PatchOperation['op'], value: unknown): value is JsonObject {
  return isObject(value) && (op === 'add' || Object.keys(value).length > 0);
}

/** `attr.sub` without a value filter: on a complex attribute, or on every value of a multi-valued one. */
function applySub(target: Target, sub: AttributeSpec, operation: PatchOperation, removes: boolean): void {
  const { container, attribute } = target;
  const key = attribute.name;
  if (!attribute.multiValued) {
    const current = isObject(container[key]) ? (container[key] as JsonObject) : undefined;
    if (removes) {
      if (current) delete current[sub.name];
    } else {
      container[key] = { ...(current ?? {}), [sub.name]: operation.value };
    }
    return;
  }
  const elements = asList(container[key]).filter(isObject);
  if (removes) {
    for (const element of elements) delete element[sub.name];
  } else if (elements.length === 0) {
    container[key] = [{ [sub.name]: operation.value }];
  } else {
    for (const element of elements) element[sub.name] = operation.value;
  }
}

/** `attr[filter]` and `attr[filter].sub`. */
function applyFiltered(
  spec: ResourceSpec,
  target: Target,
  operation: PatchOperation,
  filter: FilterNode,
  removes: boolean,
): void {
  const { container, attribute, sub } = target;
  const key = attribute.name;
  const list = asList(container[key]);
  const options = { caseExact: (path: string) => spec.caseExact(`${target.prefix}.${path}`) };
  const matched = list.filter(
    (item) => isObject(item) && matchesFilter(filter, item, options),
  ) as JsonObject[];
  if (removes) {
    if (sub) for (const element of matched) delete element[sub.name];
    else container[key] = list.filter((item) => !matched.includes(item as JsonObject));
    return;
  }
  const written: JsonObject[] = [];
  if (matched.length === 0) {
    const created = { ...filterEqualities(attribute, filter), ...elementValue(operation, sub) };
    container[key] = [...list, created];
    written.push(created);
  } else {
    for (const element of matched) {
      const replacement = sub
        ? { ...element, [sub.name]: operation.value }
        : operation.op === 'add'
          ? { ...element, ...elementValue(operation, sub) }
          : elementValue(operation, sub);
      list[list.indexOf(element)] = replacement;
      written.push(replacement);
    }
    container[key] = list;
  }
  keepOnePrimary(container[key] as unknown[], written);
}

/**
 * `attr[filter]` and `attr[filter].sub` on a single-valued complex attribute: its value, when the
 * filter selects it, as the one value of a list (Entra removes a manager with
 * `manager[value eq "…"]`). A value the filter does not select is not removed; an add or replace
 * that selects nothing sets the value, as on a multi-valued attribute it appends one.
 */
function applySingleFiltered(
  spec: ResourceSpec,
  target: Target,
  operation: PatchOperation,
  filter: FilterNode,
  removes: boolean,
): void {
  const { container, attribute } = target;
  container[attribute.name] = asList(container[attribute.name]);
  applyFiltered(spec, target, operation, filter, removes);
  const values = asList(container[attribute.name]);
  if (values.length === 0) delete container[attribute.name];
  else container[attribute.name] = values[values.length - 1];
}

function elementValue(operation: PatchOperation, sub: AttributeSpec | undefined): JsonObject {
  if (sub) return { [sub.name]: operation.value };
  return isObject(operation.value) ? operation.value : { value: operation.value };
}

/** The `sub eq "…"` comparisons of a value filter: what a new value must carry to match it. */
function filterEqualities(attribute: AttributeSpec, filter: FilterNode): JsonObject {
  if (filter.kind === 'and') {
    return { ...filterEqualities(attribute, filter.left), ...filterEqualities(attribute, filter.right) };
  }
  if (filter.kind !== 'compare' || filter.operator !== 'eq' || filter.path.subAttribute !== undefined)
    return {};
  if (filter.value === null) return {};
  const sub = attribute.sub.get(filter.path.attribute.toLowerCase());
  return { [sub?.name ?? filter.path.attribute]: filter.value };
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? [...(value as unknown[])] : [value];
}

/** RFC 7644 §3.5.2.1: adding a value that is already there changes nothing. */
function appendNew(current: unknown[], values: readonly unknown[]): unknown[] {
  const out = [...current];
  for (const value of values) if (!out.some((item) => jsonEqual(item, value))) out.push(value);
  return out;
}

/** Whether a held value is one a remove lists: same `value` sub-attribute, or equal as a whole. */
function sameValue(spec: ResourceSpec, target: Target, item: unknown, given: unknown): boolean {
  if (isObject(item) && isObject(given) && given.value !== undefined) {
    const [a, b] = [item.value, given.value];
    if (typeof a === 'string' && typeof b === 'string' && !spec.caseExact(`${target.prefix}.value`)) {
      return a.toLowerCase() === b.toLowerCase();
    }
    return jsonEqual(a, b);
  }
  return jsonEqual(item, given);
}

/** RFC 7643 §2.4: `primary: true` appears at most once; the value just written wins. */
function keepOnePrimary(list: unknown[], written: readonly unknown[]): void {
  const primaries = list.filter((item) => isObject(item) && item.primary === true) as JsonObject[];
  if (primaries.length < 2) return;
  const keep = primaries.find((item) => written.includes(item)) ?? primaries[primaries.length - 1];
  for (const item of primaries) if (item !== keep) item.primary = false;
}

/** An emptied attribute is unassigned (RFC 7643 §2.5), not an empty list or object. */
function tidy(container: JsonObject, attribute: AttributeSpec): void {
  const value = container[attribute.name];
  if (Array.isArray(value) && value.length === 0) delete container[attribute.name];
  else if (isObject(value) && Object.keys(value).length === 0) delete container[attribute.name];
}

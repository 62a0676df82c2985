import { splitKey } from './dialect.js';
import { isObject, type JsonObject } from './scim-json.js';
import { extensionOf, findAttribute, type ResourceSpec } from './scim-schema.js';

/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9): which attributes a response
 * carries. Names match case-insensitively, may be URN-qualified and may name a sub-attribute
 * (`name.givenName`, `emails.value`). `id` and `schemas` are always returned; `meta` like any
 * other attribute. Unknown names are ignored.
 */

/** Attribute names (lower-cased; extensions by lower-cased URN) → everything, or some sub-attributes. */
type AttributeTree = Map<string, true | Set<string>>;

export interface Projection {
  readonly include?: AttributeTree;
  readonly exclude?: AttributeTree;
}

export const FULL: Projection = {};

export function parseProjection(
  spec: ResourceSpec,
  attributes: readonly string[] | undefined,
  excluded: readonly string[] | undefined,
): Projection {
  if (attributes && attributes.length > 0) return { include: tree(spec, attributes) };
  if (excluded && excluded.length > 0) return { exclude: tree(spec, excluded) };
  return FULL;
}

function tree(spec: ResourceSpec, names: readonly string[]): AttributeTree {
  const out: AttributeTree = new Map();
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    const extension = extensionOf(spec, name);
    if (extension) {
      out.set(extension.id.toLowerCase(), true);
      continue;
    }
    const { schema, parts } = splitKey(spec, name);
    const [attribute = '', sub] = parts;
    if (!findAttribute(spec, attribute, schema) && attribute.toLowerCase() !== 'meta') continue;
    add(
      out,
      schema === undefined ? attribute.toLowerCase() : `${schema.toLowerCase()}:${attribute.toLowerCase()}`,
      sub,
    );
  }
  return out;
}

function add(out: AttributeTree, key: string, sub: string | undefined): void {
  const current = out.get(key);
  if (sub === undefined) out.set(key, true);
  else if (current === undefined) out.set(key, new Set([sub.toLowerCase()]));
  else if (current !== true) current.add(sub.toLowerCase());
}

/** Whether a response needs an attribute at all (to skip loading members or groups). */
export function wants(projection: Projection, name: string): boolean {
  const lower = name.toLowerCase();
  if (projection.include) return projection.include.has(lower);
  return projection.exclude?.get(lower) !== true;
}

export function project(resource: JsonObject, projection: Projection): JsonObject {
  if (!projection.include && !projection.exclude) return resource;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(resource)) {
    const lower = key.toLowerCase();
    if (lower === 'id' || lower === 'schemas') {
      out[key] = value;
    } else if (isObject(value) && lower.startsWith('urn:')) {
      const kept = projectExtension(lower, value, projection);
      if (kept) out[key] = kept;
    } else {
      const kept = projectValue(value, pick(projection, lower));
      if (kept !== undefined) out[key] = kept;
    }
  }
  // An extension left out of the response is left out of `schemas` too.
  if (Array.isArray(out.schemas)) {
    out.schemas = (out.schemas as unknown[]).filter(
      (schema) => typeof schema !== 'string' || !(schema in resource) || schema in out,
    );
  }
  return out;
}

/** What of one attribute survives: all, nothing, only some sub-attributes, or all but some. */
type Selection =
  { keep: true } | { keep: false } | { keep: 'some'; subs: Set<string> } | { keep: 'but'; subs: Set<string> };

function pick(projection: Projection, key: string): Selection {
  if (projection.include) {
    const entry = projection.include.get(key);
    if (entry === undefined) return { keep: false };
    return entry === true ? { keep: true } : { keep: 'some', subs: entry };
  }
  const entry = projection.exclude?.get(key);
  if (entry === undefined) return { keep: true };
  return entry === true ? { keep: false } : { keep: 'but', subs: entry };
}

function projectExtension(urn: string, value: JsonObject, projection: Projection): JsonObject | undefined {
  const named = (projection.include ?? projection.exclude)?.get(urn);
  if (named === true) return projection.include ? value : undefined;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    const kept = projectValue(member, pick(projection, `${urn}:${key.toLowerCase()}`));
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function projectValue(value: unknown, selection: Selection): unknown {
  if (selection.keep === true) return value;
  if (selection.keep === false) return undefined;
  const filterObject = (item: unknown): unknown => {
    if (!isObject(item)) return item;
    const out: JsonObject = {};
    for (const [key, member] of Object.entries(item)) {
      const listed = selection.subs.has(key.toLowerCase());
      if (listed === (selection.keep === 'some')) out[key] = member;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  if (Array.isArray(value)) {
    const items = value.map(filterObject).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  return filterObject(value);
}

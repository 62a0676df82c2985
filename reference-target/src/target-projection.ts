import { readAttributePath, type AttributePath } from './attribute-path.js';
import { findAttribute, isOwnSchema, type ResourceSchema } from './resource-schemas.js';
import { badRequest } from './target-errors.js';

/**
 * RFC 7644 §3.4.2.5 `attributes` / `excludedAttributes`: which attributes a response carries.
 * Attributes with `returned: always` (id) and `schemas` are always kept. Names are case-insensitive;
 * names the schema does not know are ignored.
 */

/** Attribute name → every sub-attribute ('all') or the named ones. */
type Selection = Map<string, 'all' | Set<string>>;

export interface AttributeSelection {
  include?: Selection;
  exclude?: Selection;
}

export function readSelection(
  attributes: string | undefined,
  excludedAttributes: string | undefined,
  schema: ResourceSchema,
): AttributeSelection | undefined {
  const include = attributes === undefined ? undefined : parseList('attributes', attributes, schema);
  const exclude =
    excludedAttributes === undefined
      ? undefined
      : parseList('excludedAttributes', excludedAttributes, schema);
  if (include === undefined && exclude === undefined) return undefined;
  if (include !== undefined) {
    for (const definition of schema.attributes)
      if (definition.returned === 'always') include.set(definition.name, 'all');
  }
  if (exclude !== undefined) {
    for (const definition of schema.attributes)
      if (definition.returned === 'always') exclude.delete(definition.name);
  }
  return { ...(include === undefined ? {} : { include }), ...(exclude === undefined ? {} : { exclude }) };
}

function parseList(parameter: string, text: string, schema: ResourceSchema): Selection {
  const selection: Selection = new Map();
  for (const entry of text.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const path = parseEntry(parameter, entry);
    const attribute = isOwnSchema(schema, path.schema)
      ? findAttribute(schema.attributes, path.attribute)
      : undefined;
    if (attribute === undefined) continue;
    const sub =
      path.subAttribute === undefined ? undefined : findAttribute(attribute.subAttributes, path.subAttribute);
    const current = selection.get(attribute.name);
    if (sub === undefined || current === 'all') {
      if (path.subAttribute === undefined) selection.set(attribute.name, 'all');
    } else {
      selection.set(attribute.name, new Set([...(current ?? []), sub.name]));
    }
  }
  return selection;
}

function parseEntry(parameter: string, entry: string): AttributePath {
  const path = readAttributePath(entry);
  if (path !== undefined) return path;
  throw badRequest('invalidValue', `${parameter}: ${JSON.stringify(entry)} is not an attribute path`);
}

/** The resource as the selection shows it; the stored object itself when nothing is selected. */
export function project(resource: object, selection: AttributeSelection | undefined): object {
  if (selection === undefined) return resource;
  let result = resource;
  if (selection.include !== undefined) result = pick(result, selection.include);
  if (selection.exclude !== undefined) result = drop(result, selection.exclude);
  return result;
}

function pick(resource: object, selection: Selection): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const selected = key === 'schemas' ? 'all' : selection.get(key);
    if (selected === 'all') result[key] = value;
    else if (selected !== undefined) result[key] = mapComplex(value, (member) => selected.has(member));
  }
  return result;
}

function drop(resource: object, selection: Selection): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    const selected = selection.get(key);
    if (selected === undefined) result[key] = value;
    else if (selected !== 'all') result[key] = mapComplex(value, (member) => !selected.has(member));
  }
  return result;
}

/** Keeps the members of a complex value (or of each value of a multi-valued one) that `keep` accepts. */
function mapComplex(value: unknown, keep: (member: string) => boolean): unknown {
  const filterObject = (item: unknown): unknown => {
    if (typeof item !== 'object' || item === null) return item;
    return Object.fromEntries(Object.entries(item).filter(([member]) => keep(member)));
  };
  return Array.isArray(value) ? value.map(filterObject) : filterObject(value);
}

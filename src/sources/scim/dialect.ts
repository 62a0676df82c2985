import {
  logicalOperands,
  parseFilter,
  type AttributePath,
  type FilterNode,
  type PatchPath,
} from '../../domain/scim-filter.js';
import { isObject, keyOf, type JsonObject } from './scim-json.js';
import { extensionOf, findAttribute, type AttributeSpec, type ResourceSpec } from './scim-schema.js';

/**
 * The IdP dialect normaliser: rewrites what Microsoft Entra ID and Okta really send into plain
 * RFC 7643/7644 before the resource is checked (resource-coerce.ts) or patched (patch-apply.ts).
 * Each rule names the IdP behaviour it absorbs; each has a test (test/unit/scim-dialect.test.ts).
 *
 * Rules applied to resource bodies (POST, PUT) and to PATCH values:
 *  - boolean strings: Entra sends `"True"` / `"False"` (PATCH values, and on create) where the
 *    schema says boolean;
 *  - a plain value where a complex value with a `value` sub-attribute is expected: Entra's
 *    enterprise `manager` sent as the manager's id, member lists of ids;
 *  - attribute paths used as keys: `"name.givenName"`, core-URN-qualified and extension-URN-qualified
 *    keys (`"urn:…:enterprise:2.0:User:department"`) become nested attributes.
 * Rules applied to PatchOp messages (patch-request.ts uses them):
 *  - capitalised ops (`"Add"`, `"Replace"`, `"Remove"`: Entra without aadOptscim062020);
 *  - a path-less add/replace is one operation per attribute of its value, so Entra's
 *    aadOptscim062020 form `{"op":"replace","value":{"name.givenName":…, "emails[type eq \"work\"].value":…}}`
 *    and Okta's `{"op":"replace","value":{"active":false}}` take the same road as a path;
 *  - read-only attributes inside a path-less value are ignored: Okta's group rename sends the
 *    group's `id` with every membership change;
 *  - an unqualified path naming no core attribute but one of an extension is that attribute: Entra's
 *    legacy `"path": "manager"` (its older documentation) is the enterprise extension's `manager`,
 *    its value the manager's id as a string, `{"value": id}` or a list of one such object.
 * Rules of the PATCH engine itself (patch-apply.ts): `add`/`replace` on a value-filtered path that
 * matches nothing creates the element (Entra: `emails[type eq "work"].value` on a user without a
 * work e-mail); `remove` with a `value` removes only the listed values (Entra's default member
 * removal); a null value removes the attribute.
 * Filters: Entra's `emails[type eq "work"].value eq "…"` (a value path followed by a sub-attribute,
 * outside the RFC grammar) becomes `emails[type eq "work" and value eq "…"]`; an unqualified
 * attribute naming no core attribute but one of an extension is that one, as in PATCH paths (Entra
 * checks a manager with `id eq "…" and manager eq "…"`: the enterprise extension's, qualifyFilter).
 */

const BOOLEAN_TEXT = /^\s*(true|false)\s*$/i;
const PROTO = '__proto__';
const URN = /^urn:/i;

/** A value normalised for the attribute it is addressed to (`element`: one value of a multi-valued one). */
export function normaliseValue(attribute: AttributeSpec, value: unknown, element = false): unknown {
  if (attribute.multiValued && !element) {
    return Array.isArray(value) ? value.map((item) => normaliseValue(attribute, item, true)) : value;
  }
  if (attribute.type === 'boolean' && typeof value === 'string') {
    const match = BOOLEAN_TEXT.exec(value);
    return match ? match[1]?.toLowerCase() === 'true' : value;
  }
  if (attribute.type !== 'complex') return value;
  if ((typeof value === 'string' || typeof value === 'number') && attribute.sub.has('value')) {
    return { value };
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === PROTO) continue;
    const sub = attribute.sub.get(key.toLowerCase());
    out[key] = sub ? normaliseValue(sub, item) : item;
  }
  return out;
}

/**
 * The value of Entra's legacy `"path": "manager"` (an unqualified path that qualifyPath gave to an
 * extension): a list of one `{"value": id}` there is the single value it holds. Nowhere else: a
 * list where the schema says a single complex value (`name`, `manager`) is a type error, a 400
 * invalidValue naming the attribute (resource-coerce.ts).
 */
export function legacyPathValue(attribute: AttributeSpec, value: unknown): unknown {
  const single = attribute.type === 'complex' && !attribute.multiValued;
  return single && Array.isArray(value) && value.length === 1 ? (value as unknown[])[0] : value;
}

/**
 * A resource body with attribute paths as keys expanded and every known attribute normalised.
 * Unknown attributes stay: resource-coerce.ts decides about them.
 */
export function normaliseResource(spec: ResourceSpec, body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    const extension = extensionOf(spec, key);
    if (extension && isObject(value)) {
      const nested = isObject(out[extension.id]) ? (out[extension.id] as JsonObject) : {};
      out[extension.id] = { ...nested, ...normaliseAttributes(spec, value, extension.id) };
    } else {
      placeKey(spec, out, key, value);
    }
  }
  return out;
}

function normaliseAttributes(spec: ResourceSpec, values: JsonObject, schema: string): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(values)) placeKey(spec, out, `${schema}:${key}`, value);
  return isObject(out[schema]) ? out[schema] : {};
}

/** Puts `value` at the attribute path `key` (plain, dotted or URN-qualified) of `out`. */
function placeKey(spec: ResourceSpec, out: JsonObject, key: string, value: unknown): void {
  if (key.includes(PROTO)) return; // never an attribute; assigning it would replace a prototype
  const { schema, parts } = splitKey(spec, key);
  const extension = schema === undefined ? undefined : extensionOf(spec, schema);
  const [name = '', subName] = parts;
  const attribute = schema !== undefined && !extension ? undefined : findAttribute(spec, name, schema);
  if (!attribute || parts.length > 2 || (subName !== undefined && attribute.type !== 'complex')) {
    out[key] = value; // unknown: resource-coerce.ts ignores it
    return;
  }
  const container = extension ? ensureObject(out, extension.id) : out;
  const existing = keyOf(container, attribute.name);
  if (subName === undefined) {
    const normalised = normaliseValue(attribute, value);
    const current = existing === undefined ? undefined : container[existing];
    if (existing !== undefined) delete container[existing];
    container[attribute.name] =
      isObject(current) && isObject(normalised) ? { ...current, ...normalised } : normalised;
    return;
  }
  const sub = attribute.sub.get(subName.toLowerCase());
  const parent = ensureObject(container, existing ?? attribute.name);
  parent[sub?.name ?? subName] = sub ? normaliseValue(sub, value) : value;
}

function ensureObject(container: JsonObject, key: string): JsonObject {
  const current = container[key];
  if (isObject(current)) return current;
  const created: JsonObject = {};
  container[key] = created;
  return created;
}

/**
 * The schema and the attribute parts of a key: `name.givenName` → core, [name, givenName];
 * `urn:…:enterprise:2.0:User:manager.value` → the extension, [manager, value].
 */
export function splitKey(spec: ResourceSpec, key: string): { schema?: string; parts: string[] } {
  if (!URN.test(key)) return { parts: key.split('.') };
  const lower = key.toLowerCase();
  for (const id of [spec.core.id, ...[...spec.extensions.values()].map((extension) => extension.id)]) {
    if (lower.startsWith(`${id.toLowerCase()}:`)) {
      const rest = key.slice(id.length + 1).split('.');
      return id === spec.core.id ? { parts: rest } : { schema: id, parts: rest };
    }
  }
  return { schema: key, parts: [] };
}

/** The attribute a PATCH path addresses, and whether the value is one element of a multi-valued one. */
export function pathTarget(
  spec: ResourceSpec,
  path: PatchPath,
): { attribute: AttributeSpec; element: boolean } | undefined {
  const attribute = findAttribute(spec, path.attribute, path.schema);
  if (!attribute) return undefined;
  if (path.subAttribute === undefined) return { attribute, element: path.valueFilter !== undefined };
  const sub = attribute.sub.get(path.subAttribute.toLowerCase());
  return sub ? { attribute: sub, element: false } : undefined;
}

/**
 * An unqualified path that names no core attribute but an attribute of exactly one extension, as
 * that extension's attribute (RFC 7644 §3.10 qualifies extension attributes with their URN; Entra's
 * legacy `manager` path and its manager filter do not). Any other path is returned as it is.
 */
export function qualifyPath<P extends AttributePath>(spec: ResourceSpec, path: P): P {
  if (path.schema !== undefined || findAttribute(spec, path.attribute)) return path;
  const owners = [...spec.extensions.values()].filter((extension) =>
    extension.attributes.has(path.attribute.toLowerCase()),
  );
  const [owner] = owners;
  return owners.length === 1 && owner ? { ...path, schema: owner.id } : path;
}

/**
 * A filter whose attribute paths are qualified as `qualifyPath` qualifies PATCH paths: Entra checks
 * a manager with `id eq "…" and manager eq "…"`, `manager` being the enterprise extension's (its
 * `value`, as a complex attribute compares, RFC 7644 §3.4.2.2). Paths inside a value filter are
 * relative to the attribute's values and stay as they are. `and` / `or` chains are walked in loops
 * (scim-filter-walk.ts): the recursion follows only the filter's nesting, which the parser caps.
 */
export function qualifyFilter(spec: ResourceSpec, node: FilterNode): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const [first, ...rest] = logicalOperands(node, node.kind).map((operand) =>
        qualifyFilter(spec, operand),
      );
      const kind = node.kind;
      return rest.reduce<FilterNode>((left, right) => ({ kind, left, right }), first ?? node);
    }
    case 'not':
      return { ...node, filter: qualifyFilter(spec, node.filter) };
    default:
      return { ...node, path: qualifyPath(spec, node.path) };
  }
}

/** Capitalised ops (Entra without aadOptscim062020): `"Replace"` is `replace`. */
export function normaliseOpName(op: unknown): string | undefined {
  return typeof op === 'string' ? op.trim().toLowerCase() : undefined;
}

const SUB_ATTRIBUTE_AFTER_FILTER =
  /^\s*([A-Za-z][\w:.$-]*)\[(.+)\]\.([A-Za-z$][\w$-]*)\s+([A-Za-z]{2})(?:\s+(.+?))?\s*$/s;

/**
 * Parses a filter, accepting Entra's `attr[filter].sub op value` (outside the grammar of RFC 7644
 * §3.4.2.2) as `attr[(filter) and sub op value]`. Other syntax errors stay what they are.
 */
export function parseDialectFilter(text: string): FilterNode {
  try {
    return parseFilter(text);
  } catch (error) {
    const match = SUB_ATTRIBUTE_AFTER_FILTER.exec(text);
    if (!match) throw error;
    const [, attribute, inner, sub, operator, value] = match;
    const rewritten = `${attribute}[(${inner}) and ${sub} ${operator}${value === undefined ? '' : ` ${value}`}]`;
    try {
      return parseFilter(rewritten);
    } catch {
      throw error;
    }
  }
}

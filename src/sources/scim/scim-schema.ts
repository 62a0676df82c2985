import SCIMMY from 'scimmy';

/**
 * The resource schemas the bridge's SCIM server speaks (RFC 7643 §4.1 User, §4.3 enterprise
 * extension, §4.2 Group), compiled once from scimmy's schema definitions into lookup tables. scimmy
 * stays the single source of the attribute characteristics (type, plurality, caseExact, mutability,
 * returned); the tables let every request check them in microseconds. scimmy's own per-request
 * coercion (Schemas.User in and out, PatchOp.apply) measured 0.6 ms in, 0.8 ms out and 2.7 ms per
 * PATCH on the project's machines: more than the whole budget of a write at 2,000 writes/s.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** Most resources one list answer holds (ServiceProviderConfig filter.maxResults, RFC 7643 §5). */
export const MAX_RESULTS = 1000;

export type AttributeType =
  'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'binary' | 'complex';

/** One attribute's characteristics (RFC 7643 §2.2, §7). */
export interface AttributeSpec {
  /** The canonical spelling, e.g. `userName`. */
  readonly name: string;
  readonly type: AttributeType;
  readonly multiValued: boolean;
  readonly caseExact: boolean;
  /** mutability readOnly: client values are ignored (RFC 7644 §3.5.1). */
  readonly readOnly: boolean;
  /** returned never (password): never part of a response. */
  readonly neverReturned: boolean;
  /** Sub-attributes of a complex attribute, keyed by lower-cased name. */
  readonly sub: ReadonlyMap<string, AttributeSpec>;
}

export interface SchemaSpec {
  /** The schema URN. */
  readonly id: string;
  /** Attributes keyed by lower-cased name. */
  readonly attributes: ReadonlyMap<string, AttributeSpec>;
}

export interface ResourceSpec {
  readonly resourceType: 'User' | 'Group';
  readonly endpoint: '/Users' | '/Groups';
  readonly core: SchemaSpec;
  /** Schema extensions keyed by lower-cased URN. */
  readonly extensions: ReadonlyMap<string, SchemaSpec>;
  /** Whether an attribute compares case-exactly, by the canonical path of scim-filter.ts. */
  caseExact(canonicalPath: string): boolean;
}

function compileAttribute(attribute: SCIMMY.Types.Attribute): AttributeSpec {
  const config = attribute.config;
  const sub = new Map<string, AttributeSpec>();
  for (const child of attribute.subAttributes ?? [])
    sub.set(child.name.toLowerCase(), compileAttribute(child));
  return {
    name: attribute.name,
    type: String(attribute.type) as AttributeType,
    multiValued: config.multiValued === true,
    caseExact: config.caseExact === true,
    readOnly: config.mutable === false || config.mutable === 'readOnly',
    neverReturned: config.returned === false || config.returned === 'never',
    sub,
  };
}

/**
 * scimmy adds the common attributes (RFC 7643 §3.1: id, externalId, meta, and `schemas`) to every
 * definition as "shadow" attributes; they belong to the resource, so an extension drops them.
 */
function compileSchema(definition: SCIMMY.Types.SchemaDefinition, extension: boolean): SchemaSpec {
  const attributes = new Map<string, AttributeSpec>();
  for (const attribute of definition.attributes) {
    // Extensions appear among a definition's attributes as SchemaDefinition instances.
    if (!(attribute instanceof SCIMMY.Types.Attribute) || attribute.name === 'schemas') continue;
    if (extension && attribute.config.shadow === true) continue;
    attributes.set(attribute.name.toLowerCase(), compileAttribute(attribute));
  }
  return { id: definition.id, attributes };
}

function caseExactTable(core: SchemaSpec, extensions: readonly SchemaSpec[]): Map<string, boolean> {
  const table = new Map<string, boolean>();
  const add = (prefix: string, spec: AttributeSpec) => {
    const path = `${prefix}${spec.name.toLowerCase()}`;
    table.set(path, spec.caseExact);
    for (const child of spec.sub.values()) add(`${path}.`, child);
  };
  for (const spec of core.attributes.values()) add('', spec);
  for (const extension of extensions) {
    for (const spec of extension.attributes.values()) add(`${extension.id.toLowerCase()}:`, spec);
  }
  return table;
}

function resourceSpec(
  resourceType: 'User' | 'Group',
  core: SCIMMY.Types.SchemaDefinition,
  extensionDefinitions: readonly SCIMMY.Types.SchemaDefinition[],
): ResourceSpec {
  const coreSpec = compileSchema(core, false);
  const extensions = extensionDefinitions.map((definition) => compileSchema(definition, true));
  const table = caseExactTable(coreSpec, extensions);
  return {
    resourceType,
    endpoint: resourceType === 'User' ? '/Users' : '/Groups',
    core: coreSpec,
    extensions: new Map(extensions.map((extension) => [extension.id.toLowerCase(), extension])),
    caseExact: (path) => table.get(path) ?? false,
  };
}

export const USER_SPEC: ResourceSpec = resourceSpec('User', SCIMMY.Schemas.User.definition, [
  SCIMMY.Schemas.EnterpriseUser.definition,
]);

export const GROUP_SPEC: ResourceSpec = resourceSpec('Group', SCIMMY.Schemas.Group.definition, []);

/** The extension a URN names, matched case-insensitively (RFC 7643 §2.1). */
export function extensionOf(spec: ResourceSpec, urn: string): SchemaSpec | undefined {
  return spec.extensions.get(urn.toLowerCase());
}

/** An attribute of the core schema or of the extension named by `schema` (core when undefined). */
export function findAttribute(spec: ResourceSpec, name: string, schema?: string): AttributeSpec | undefined {
  const owner =
    schema === undefined || schema.toLowerCase() === spec.core.id.toLowerCase()
      ? spec.core
      : extensionOf(spec, schema);
  return owner?.attributes.get(name.toLowerCase());
}

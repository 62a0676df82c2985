/**
 * Attribute paths as filters, PATCH paths and `attributes` lists name them (RFC 7644 §3.10):
 * `[URI ":"] ATTRNAME ["." ATTRNAME]`. A schema URN runs up to the path's last colon, so
 * `urn:ietf:params:scim:schemas:core:2.0:User:name.givenName` names `name.givenName` of the core
 * User schema.
 */

export interface AttributePath {
  /** The schema URN the path was qualified with, if any. */
  schema?: string;
  attribute: string;
  subAttribute?: string;
}

/** RFC 7644 §3.4.2.2: ATTRNAME = ALPHA *(nameChar), nameChar = "-" / "_" / DIGIT / ALPHA; RFC 7643 adds `$ref`. */
const ATTRIBUTE_NAME = /^(?:[A-Za-z][\w-]*|\$ref)$/;
const CORE_SCHEMA_PREFIX = 'urn:ietf:params:scim:schemas:core:2.0:';

export function isAttributeName(text: string): boolean {
  return ATTRIBUTE_NAME.test(text);
}

/** Whether a URN names a core schema (RFC 7643 §8.7.1): its attributes sit at the top of a resource. */
export function isCoreSchema(urn: string): boolean {
  return `${urn.toLowerCase()}:`.startsWith(CORE_SCHEMA_PREFIX);
}

/** The path, or undefined when it is not `[URI ":"] ATTRNAME ["." ATTRNAME]`. */
export function readAttributePath(text: string): AttributePath | undefined {
  let schema: string | undefined;
  let local = text;
  if (text.toLowerCase().startsWith('urn:')) {
    const colon = text.lastIndexOf(':');
    schema = text.slice(0, colon);
    local = text.slice(colon + 1);
    if (schema.length <= 'urn:'.length) return undefined;
  }
  const names = local.split('.');
  if (names.length > 2 || !names.every(isAttributeName)) return undefined;
  const [attribute = '', subAttribute] = names;
  return {
    ...(schema === undefined ? {} : { schema }),
    attribute,
    ...(subAttribute === undefined ? {} : { subAttribute }),
  };
}

/**
 * The lower-cased dotted name caseExact rules and indexes know an attribute by: `username`,
 * `members.value`; `within` is the multi-valued attribute a value filter selects in. A core
 * schema's URN is dropped, an extension's kept: `urn:…:enterprise:2.0:user:employeenumber`.
 */
export function attributeKey(path: AttributePath, within?: string): string {
  const local = [within, path.attribute, path.subAttribute].filter((part) => part !== undefined).join('.');
  const qualified =
    path.schema === undefined || isCoreSchema(path.schema) ? local : `${path.schema}:${local}`;
  return qualified.toLowerCase();
}

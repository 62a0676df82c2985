import { isAttributeName, readAttributePath } from './attribute-path.js';
import {
  findAttribute,
  isOwnSchema,
  type AttributeDefinition,
  type ResourceSchema,
} from './resource-schemas.js';
import { badRequest, isScimError } from './target-errors.js';
import { parseTargetFilter, type TargetFilter } from './target-filter.js';

/**
 * A PATCH path (RFC 7644 §3.5.2: `PATH = attrPath / valuePath [subAttr]`) resolved against the
 * resource's schema before scim-patch applies anything: the attribute must exist, names are spelt
 * as the schema spells them (the library looks members up by their exact key, RFC 7643 §2.1 makes
 * names case-insensitive), and a read-only attribute is a 400 mutability. The value filter is read
 * with the target's filter parser; a malformed path is a 400 invalidPath.
 */

export interface PatchTarget {
  /** The path as the client wrote it, for error messages. */
  text: string;
  attribute: AttributeDefinition;
  subAttribute?: AttributeDefinition;
  /** Selects values of a multi-valued `attribute`; `subAttribute` then follows the "]". */
  valueFilter?: TargetFilter;
}

/** attrPath, then optionally "[" valFilter "]" and "." subAttr. */
const PATH_PARTS = /^([^[\]]+)(?:\[(.*)\](?:\.(.*))?)?$/s;

/**
 * The target of `text`; `lenient` (the members of a path-less value, RFC 7644 §3.5.2.1/3) skips
 * what a body may carry — unknown or read-only attributes, as a PUT ignores them (§3.5.1) — with
 * undefined instead of failing.
 */
export function resolvePatchPath(
  text: string,
  schema: ResourceSchema,
  lenient: boolean,
): PatchTarget | undefined {
  let target: PatchTarget | undefined;
  try {
    target = resolve(text, schema);
  } catch (error) {
    if (lenient && isScimError(error)) return undefined;
    throw error;
  }
  const { attribute, subAttribute } = target;
  if (attribute.mutability === 'readOnly' || subAttribute?.mutability === 'readOnly') {
    if (lenient) return undefined;
    throw badRequest('mutability', `"${text}" is read-only`);
  }
  return target;
}

function resolve(text: string, schema: ResourceSchema): PatchTarget {
  const [, pathText = '', filterText, after] = PATH_PARTS.exec(text.trim()) ?? [];
  const path = readAttributePath(pathText);
  if (path === undefined) throw invalidPath(text, 'it is not [URN:]attribute[.sub-attribute]');
  if (after !== undefined && !isAttributeName(after))
    throw invalidPath(text, `malformed sub-attribute ${JSON.stringify(after)} after the value filter`);
  if (filterText !== undefined && path.subAttribute !== undefined)
    throw invalidPath(text, 'a value filter follows an attribute, not a sub-attribute');
  const attribute = isOwnSchema(schema, path.schema)
    ? findAttribute(schema.attributes, path.attribute)
    : undefined;
  const subName = path.subAttribute ?? after;
  const subAttribute = subName === undefined ? undefined : findAttribute(attribute?.subAttributes, subName);
  if (attribute === undefined || (subName !== undefined && subAttribute === undefined))
    throw badRequest('invalidPath', `"${text}" is not an attribute of ${schema.name}`);
  if (filterText === undefined)
    return { text, attribute, ...(subAttribute === undefined ? {} : { subAttribute }) };
  if (!attribute.multiValued)
    throw badRequest('invalidPath', `"${text}": value filters select values of multi-valued attributes only`);
  return {
    text,
    attribute,
    ...(subAttribute === undefined ? {} : { subAttribute }),
    valueFilter: parseTargetFilter(filterText, 'invalidPath'),
  };
}

function invalidPath(text: string, problem: string): Error {
  return badRequest('invalidPath', `Invalid path ${JSON.stringify(text)}: ${problem}`);
}

import { parsePath, type PatchPath } from '../../domain/scim-filter.js';
import { legacyPathValue, normaliseOpName, normaliseValue, pathTarget, qualifyPath } from './dialect.js';
import { PATCH_OP_SCHEMA, type PatchOpName, type PatchOperation } from './patch-operation.js';
import { invalid } from './scim-errors.js';
import { isObject, keyOf } from './scim-json.js';
import { extensionOf, type ResourceSpec } from './scim-schema.js';

/**
 * Reads a PatchOp message (RFC 7644 §3.5.2) into operations the engine applies, with the dialect
 * rules of dialect.ts: capitalised ops, values normalised for the attribute they address, and every
 * path-less add/replace split into one operation per attribute of its value (so Entra's
 * `"name.givenName"` keys and Okta's `{"active": false}` take the same road as a path). Unknown and
 * read-only attributes inside a path-less value are ignored, as in a POST body; an explicit path
 * to one is a 400.
 */
export function parsePatchRequest(spec: ResourceSpec, body: unknown): PatchOperation[] {
  if (!isObject(body)) throw invalid('invalidSyntax', 'The body must be a PatchOp message (RFC 7644 §3.5.2)');
  const schemas = body[keyOf(body, 'schemas') ?? 'schemas'];
  if (Array.isArray(schemas) && !schemas.includes(PATCH_OP_SCHEMA)) {
    throw invalid('invalidSyntax', `A PatchOp message lists the schema "${PATCH_OP_SCHEMA}"`);
  }
  const operations = body[keyOf(body, 'Operations') ?? 'Operations'];
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalid('invalidValue', 'A PatchOp message needs "Operations": a non-empty list');
  }
  return (operations as unknown[]).flatMap((operation, index) => parseOperation(spec, operation, index + 1));
}

function parseOperation(spec: ResourceSpec, raw: unknown, index: number): PatchOperation[] {
  if (!isObject(raw)) throw invalid('invalidSyntax', `Operation ${index} must be an object`);
  const op = normaliseOpName(raw[keyOf(raw, 'op') ?? 'op']);
  if (op !== 'add' && op !== 'replace' && op !== 'remove') {
    throw invalid('invalidSyntax', `Operation ${index}: "op" must be add, replace or remove`);
  }
  const pathValue = raw[keyOf(raw, 'path') ?? 'path'];
  const valueKey = keyOf(raw, 'value');
  const value = valueKey === undefined ? undefined : raw[valueKey];
  if (pathValue !== undefined && pathValue !== null && typeof pathValue !== 'string') {
    throw invalid('invalidPath', `Operation ${index}: "path" must be a string`);
  }
  const pathText = typeof pathValue === 'string' ? pathValue.trim() : '';
  if (pathText === '') return pathless(spec, op, value, index);
  if (op === 'add' && value === undefined)
    throw invalid('invalidValue', `Operation ${index}: add needs a "value"`);
  const extension = extensionOf(spec, pathText);
  if (extension) {
    // The whole extension as the target: its value holds the extension's attributes.
    if (op === 'remove') return removeExtension(spec, extension.id, index);
    return pathless(spec, op, { [extension.id]: value }, index);
  }
  const parsed = parsePath(pathText);
  const path = qualifyPath(spec, parsed);
  const target = pathTarget(spec, path);
  const given = target && path !== parsed ? legacyPathValue(target.attribute, value) : value;
  const normalised = target ? normaliseValue(target.attribute, given, target.element) : given;
  return [{ op, path, pathText, index, ...(valueKey === undefined ? {} : { value: normalised }) }];
}

function pathless(spec: ResourceSpec, op: PatchOpName, value: unknown, index: number): PatchOperation[] {
  if (op === 'remove')
    throw invalid('noTarget', `Operation ${index}: remove needs a "path" (RFC 7644 §3.5.2.2)`);
  if (!isObject(value)) {
    throw invalid(
      'invalidValue',
      `Operation ${index}: without a "path", "value" must be an object of attributes`,
    );
  }
  const out: PatchOperation[] = [];
  for (const [key, item] of Object.entries(value)) {
    const extension = extensionOf(spec, key);
    if (!extension) {
      out.push(...expandKey(spec, op, key, item, index));
    } else if (isObject(item)) {
      for (const [name, member] of Object.entries(item)) {
        out.push(...expandKey(spec, op, `${extension.id}:${name}`, member, index));
      }
    }
  }
  return out;
}

/** One attribute of a path-less value as an operation of its own, or nothing when it is ignored. */
function expandKey(
  spec: ResourceSpec,
  op: PatchOpName,
  key: string,
  value: unknown,
  index: number,
): PatchOperation[] {
  let path: PatchPath;
  try {
    path = qualifyPath(spec, parsePath(key));
  } catch {
    return [];
  }
  const target = pathTarget(spec, path);
  if (!target || target.attribute.readOnly) return [];
  return [{ op, path, pathText: key, index, value: normaliseValue(target.attribute, value, target.element) }];
}

function removeExtension(spec: ResourceSpec, id: string, index: number): PatchOperation[] {
  const extension = extensionOf(spec, id);
  return [...(extension?.attributes.values() ?? [])]
    .filter((attribute) => !attribute.readOnly)
    .map((attribute) => ({
      op: 'remove' as const,
      path: { schema: id, attribute: attribute.name },
      pathText: `${id}:${attribute.name}`,
      index,
    }));
}

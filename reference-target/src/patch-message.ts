import { getAttribute } from './attribute-lookup.js';
import { badRequest } from './target-errors.js';
import { PATCH_OP_SCHEMA } from './scim-types.js';

/** RFC 7644 §3.5.2: a PatchOp message, read strictly except that `op` is case-insensitive (Entra sends "Replace"). */

export type PatchOperationName = 'add' | 'remove' | 'replace';

export interface PatchOperation {
  op: PatchOperationName;
  path?: string;
  value?: unknown;
}

const OPERATION_NAMES: ReadonlySet<string> = new Set(['add', 'remove', 'replace']);

export function readPatchRequest(body: unknown): PatchOperation[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('invalidSyntax', 'The request body must be a PatchOp JSON object');
  }
  const schemas = getAttribute(body, 'schemas');
  if (!Array.isArray(schemas) || !schemas.some((schema) => schema === PATCH_OP_SCHEMA)) {
    throw badRequest('invalidSyntax', `schemas must be ["${PATCH_OP_SCHEMA}"]`);
  }
  const operations = getAttribute(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw badRequest('invalidSyntax', 'Operations must be a non-empty array');
  }
  return operations.map((operation: unknown, index) => readOperation(operation, index));
}

function readOperation(operation: unknown, index: number): PatchOperation {
  const label = `Operations[${index}]`;
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
    throw badRequest('invalidSyntax', `${label} must be an object`);
  }
  const op = getAttribute(operation, 'op');
  if (typeof op !== 'string' || !OPERATION_NAMES.has(op.toLowerCase())) {
    throw badRequest(
      'invalidSyntax',
      `${label}.op must be "add", "remove" or "replace", not ${JSON.stringify(op)}`,
    );
  }
  const path = getAttribute(operation, 'path');
  if (path !== undefined && typeof path !== 'string')
    throw badRequest('invalidPath', `${label}.path must be a string`);
  const value = getAttribute(operation, 'value');
  const name = op.toLowerCase() as PatchOperationName;
  if (name !== 'remove' && value === undefined)
    throw badRequest('invalidSyntax', `${label} (${name}) needs a value`);
  return {
    op: name,
    ...(path === undefined || path.trim() === '' ? {} : { path }),
    ...(value === undefined ? {} : { value }),
  };
}

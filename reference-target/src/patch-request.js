import { lookupAttribute } from '../../src/domain/scim-filter.js';
import { badRequest } from './scim-errors.js';
import { PATCH_OP_SCHEMA } from './scim-types.js';
const OPERATION_NAMES = new Set(['add', 'remove', 'replace']);
export function readPatchRequest(body) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw badRequest('invalidSyntax', 'The request body must be a PatchOp JSON object');
    }
    const schemas = lookupAttribute(body, 'schemas');
    if (!Array.isArray(schemas) || !schemas.some((schema) => schema === PATCH_OP_SCHEMA)) {
        throw badRequest('invalidSyntax', `schemas must be ["${PATCH_OP_SCHEMA}"]`);
    }
    const operations = lookupAttribute(body, 'Operations');
    if (!Array.isArray(operations) || operations.length === 0) {
        throw badRequest('invalidSyntax', 'Operations must be a non-empty array');
    }
    return operations.map((operation, index) => readOperation(operation, index));
}
function readOperation(operation, index) {
    const label = `Operations[${index}]`;
    if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
        throw badRequest('invalidSyntax', `${label} must be an object`);
    }
    const op = lookupAttribute(operation, 'op');
    if (typeof op !== 'string' || !OPERATION_NAMES.has(op.toLowerCase())) {
        throw badRequest('invalidSyntax', `${label}.op must be "add", "remove" or "replace", not ${JSON.stringify(op)}`);
    }
    const path = lookupAttribute(operation, 'path');
    if (path !== undefined && typeof path !== 'string')
        throw badRequest('invalidPath', `${label}.path must be a string`);
    const value = lookupAttribute(operation, 'value');
    const name = op.toLowerCase();
    if (name !== 'remove' && value === undefined)
        throw badRequest('invalidSyntax', `${label} (${name}) needs a value`);
    return {
        op: name,
        ...(path === undefined || path.trim() === '' ? {} : { path }),
        ...(value === undefined ? {} : { value }),
    };
}
//# sourceMappingURL=patch-request.js.map
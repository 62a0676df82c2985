import { applyPatch, patchContext } from './patch.js';
import { GROUP_RESOURCE_SCHEMA, USER_RESOURCE_SCHEMA } from './resource-schemas.js';
import { readGroup, readUser } from './resource-validation.js';
import { notFound } from './scim-errors.js';
const HTTP_BODY = { requireSchemas: true };
const PATCHED_BODY = { requireSchemas: false };
export function userEndpoint(store) {
    const context = patchContext(USER_RESOURCE_SCHEMA);
    return {
        schema: USER_RESOURCE_SCHEMA,
        get: (id) => store.getUser(id),
        create: (body) => store.createUser(readUser(body, HTTP_BODY)),
        replace: (id, body) => store.replaceUser(id, readUser(body, HTTP_BODY)),
        patch: (id, operations) => {
            const working = mutableCopy(store.getUser(id) ?? throwNotFound(id));
            applyPatch(working, operations, context);
            return store.replaceUser(id, readUser(working, PATCHED_BODY));
        },
        delete: (id) => store.deleteUser(id),
        list: (query) => store.listUsers(query),
    };
}
export function groupEndpoint(store) {
    const context = patchContext(GROUP_RESOURCE_SCHEMA);
    return {
        schema: GROUP_RESOURCE_SCHEMA,
        get: (id) => store.getGroup(id),
        create: (body) => store.createGroup(readGroup(body, HTTP_BODY)),
        replace: (id, body) => store.replaceGroup(id, readGroup(body, HTTP_BODY)),
        patch: (id, operations) => {
            const working = mutableCopy(store.getGroup(id) ?? throwNotFound(id));
            applyPatch(working, operations, context);
            return store.replaceGroup(id, readGroup(working, PATCHED_BODY));
        },
        delete: (id) => store.deleteGroup(id),
        list: (query) => store.listGroups(query),
    };
}
function throwNotFound(id) {
    throw notFound(id);
}
/** Stored resources are frozen; PATCH works on a deep copy. */
function mutableCopy(resource) {
    return structuredClone(resource);
}
//# sourceMappingURL=resource-endpoints.js.map
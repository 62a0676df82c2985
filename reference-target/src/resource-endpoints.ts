import type { QueryResult } from './indexed-query.js';
import type { PatchOperation } from './patch-message.js';
import { GROUP_RESOURCE_SCHEMA, USER_RESOURCE_SCHEMA, type ResourceSchema } from './resource-schemas.js';
import type { ListQuery, ResourceStore } from './resource-store.js';
import { readGroup, readUser } from './resource-validation.js';
import { notFound } from './target-errors.js';
import { applyPatch, type MutableResource } from './target-patch.js';
import type { ScimResource } from './scim-types.js';

/**
 * One SCIM resource endpoint (RFC 7644 §3.2): the same verbs for Users and Groups, so the router
 * is written once. Bodies are read with the rules of resource-validation.ts; PATCH applies the
 * operations to a copy and then stores it as a PUT would (RFC 7644 §3.5.2: all or nothing).
 */
export interface ResourceEndpoint {
  schema: ResourceSchema;
  get(id: string): ScimResource | undefined;
  create(body: unknown): ScimResource;
  replace(id: string, body: unknown): ScimResource;
  patch(id: string, operations: readonly PatchOperation[]): ScimResource;
  delete(id: string): void;
  list(query: ListQuery): QueryResult<ScimResource>;
}

const HTTP_BODY = { requireSchemas: true };
const PATCHED_BODY = { requireSchemas: false };

export function userEndpoint(store: ResourceStore): ResourceEndpoint {
  return {
    schema: USER_RESOURCE_SCHEMA,
    get: (id) => store.getUser(id),
    create: (body) => store.createUser(readUser(body, HTTP_BODY)),
    replace: (id, body) => store.replaceUser(id, readUser(body, HTTP_BODY)),
    patch: (id, operations) => {
      const working = mutableCopy(store.getUser(id) ?? throwNotFound(id));
      applyPatch(working, operations, USER_RESOURCE_SCHEMA);
      return store.replaceUser(id, readUser(working, PATCHED_BODY));
    },
    delete: (id) => store.deleteUser(id),
    list: (query) => store.listUsers(query),
  };
}

export function groupEndpoint(store: ResourceStore): ResourceEndpoint {
  return {
    schema: GROUP_RESOURCE_SCHEMA,
    get: (id) => store.getGroup(id),
    create: (body) => store.createGroup(readGroup(body, HTTP_BODY)),
    replace: (id, body) => store.replaceGroup(id, readGroup(body, HTTP_BODY)),
    patch: (id, operations) => {
      const working = mutableCopy(store.getGroup(id) ?? throwNotFound(id));
      applyPatch(working, operations, GROUP_RESOURCE_SCHEMA);
      return store.replaceGroup(id, readGroup(working, PATCHED_BODY));
    },
    delete: (id) => store.deleteGroup(id),
    list: (query) => store.listGroups(query),
  };
}

function throwNotFound(id: string): never {
  throw notFound(id);
}

/** Stored resources are frozen; PATCH works on a deep copy. */
function mutableCopy(resource: ScimResource): MutableResource {
  return structuredClone(resource) as object as MutableResource;
}

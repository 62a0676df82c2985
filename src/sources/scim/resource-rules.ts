import type { Request } from 'express';
import type { ChangeOptions } from '../../domain/desired-change.js';
import type { IdentityKind } from '../../domain/identity.js';
import type { DesiredStateQueries, StoredGroup, StoredUser } from '../../store/desired-state.queries.js';
import type { DesiredStateApi, WriteResult } from '../desired-state.api.js';
import { applyPatch } from './patch-apply.js';
import type { PatchOperation } from './patch-operation.js';
import type { Projection } from './projection.js';
import { coerceResource } from './resource-coerce.js';
import type { ScimContext } from './scim-context.js';
import type { JsonObject } from './scim-json.js';
import type { ResourceSpec } from './scim-schema.js';

/** A stored identity as the SCIM server reads it. */
export type StoredResource = StoredUser | StoredGroup;

/**
 * What differs between /Users and /Groups; everything else (paths, ids, reading the identity,
 * list and search, the lock around a read-modify-write, projection, Location, status codes, delete)
 * is the shared skeleton in resource.routes.ts. users.rules.ts and groups.rules.ts supply these.
 */
export interface ResourceRules<R extends StoredResource> {
  readonly kind: IdentityKind;
  /** The schema: resource type, endpoint, attributes and how each is checked and compared. */
  readonly spec: ResourceSpec;
  /**
   * The attribute that lists related identities (a user's `groups`, a group's `members`), lower-
   * cased: read from the store only when an answer shows it or a filter names it.
   */
  readonly related: 'groups' | 'members';
  /** Records by id (undefined where absent), with their related list when `related`. */
  load(queries: DesiredStateQueries, ids: readonly string[], related: boolean): Promise<(R | undefined)[]>;
  /** The full SCIM representation (`base`: the absolute URL of /scim/v2). */
  toScim(record: R, base: string): JsonObject;
  /** The equality index of an attribute (canonical path, `id` aside); undefined when it has none. */
  index(queries: DesiredStateQueries, attribute: string): ((value: string) => Promise<string[]>) | undefined;
  /** POST: stores a checked resource as the new identity `id`; returns it as stored. */
  create(ctx: ScimContext, req: Request, id: string, resource: JsonObject): Promise<R>;
  /** Whether PUT (no operations) or PATCH reads the current identity with its related list. */
  readsRelated(projection: Projection, operations: readonly PatchOperation[]): boolean;
  /**
   * PUT: replaces `current` with a checked resource; `asserted` names the attributes the body
   * holds, those it empties included (resource-coerce.ts, assertedAttributes). Returns the
   * identity as now stored, or undefined when the answer reads it back.
   */
  replace(
    ctx: ScimContext,
    req: Request,
    current: R,
    resource: JsonObject,
    asserted: ReadonlySet<string>,
  ): Promise<R | undefined>;
  /** PATCH: applies the operations to `current`, all or nothing; returns as `replace` does. */
  patch(
    ctx: ScimContext,
    req: Request,
    current: R,
    operations: readonly PatchOperation[],
  ): Promise<R | undefined>;
  /** RFC 7644 §3.5.2: whether a PATCH that asks for no attributes answers 204 without a body. */
  readonly patchAnswersNoContent: boolean;
  delete(api: DesiredStateApi, id: string, options: ChangeOptions): Promise<WriteResult>;
}

/**
 * A kind's `index` rule from its table (filter attribute, as a canonical path → the store index
 * that holds it) and the store's look-up by index. A Map: a client's attribute name never reaches
 * an object's prototype.
 */
export function indexedBy<I extends string>(
  table: ReadonlyMap<string, I>,
  lookUp: (queries: DesiredStateQueries, index: I, value: string) => Promise<string[]>,
): ResourceRules<StoredResource>['index'] {
  return (queries, attribute) => {
    const index = table.get(attribute);
    return index === undefined ? undefined : (value) => lookUp(queries, index, value);
  };
}

/** RFC 7643 §3.1: a resource's `meta`; times are the store clock's. */
export function meta(
  resourceType: string,
  stored: { createdMs: number; modifiedMs: number },
  location: string,
): JsonObject {
  return {
    resourceType,
    created: new Date(stored.createdMs).toISOString(),
    lastModified: new Date(stored.modifiedMs).toISOString(),
    location,
  };
}

/**
 * A resource patched (RFC 7644 §3.5.2) and checked again (resource-coerce.ts): the operations
 * apply to `representation` (the full SCIM form of the current identity, without its related
 * list) less what a client cannot change, `id`, `meta` and `schemas`.
 */
export function patchResource(
  spec: ResourceSpec,
  representation: JsonObject,
  operations: readonly PatchOperation[],
): JsonObject {
  const { id: _id, meta: _meta, schemas: _schemas, ...editable } = representation;
  return coerceResource(spec, applyPatch(spec, editable, operations));
}

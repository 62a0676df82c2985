import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { StoredUser } from '../../store/desired-state.queries.js';
import { normaliseResource } from './dialect.js';
import {
  listRequestFromQuery,
  listRequestFromSearch,
  projectionFromQuery,
  type ListRequest,
} from './list-request.js';
import { applyPatch } from './patch-apply.js';
import { parsePatchRequest } from './patch-request.js';
import { project, wants, type Projection } from './projection.js';
import { coerceResource } from './resource-coerce.js';
import { pathId } from './resource-id.js';
import { search, type SearchSource } from './resource-search.js';
import { listResponse, queryOf, resourceBody, scimSignal, type ScimContext } from './scim-context.js';
import { resourceNotFound } from './scim-errors.js';
import { jsonEqual } from './scim-json.js';
import { USER_SPEC } from './scim-schema.js';
import { userFromScim, userToScim, type KeptUserAttributes } from './user-resource.js';

/**
 * /Users (RFC 7644 §3): create (201 + Location), get, list and search, replace (PUT), PATCH (200
 * with the resource), delete (204). Reads come from the desired state; every accepted write goes
 * through the DesiredStateApi (`unique`: a userName held by another user is a 409 uniqueness).
 */
export function usersRouter(ctx: ScimContext): Router {
  const router = Router();
  router.get('/Users', (req, res) => listUsers(ctx, req, res, listRequestFromQuery(USER_SPEC, queryOf(req))));
  router.post('/Users/.search', (req, res) =>
    listUsers(ctx, req, res, listRequestFromSearch(USER_SPEC, req.body)),
  );
  router.get('/Users/:id', (req, res) => getUser(ctx, req, res));
  router.post('/Users', (req, res) => createUser(ctx, req, res));
  router.put('/Users/:id', (req, res) => replaceUser(ctx, req, res));
  router.patch('/Users/:id', (req, res) => patchUser(ctx, req, res));
  router.delete('/Users/:id', (req, res) => deleteUser(ctx, req, res));
  return router;
}

export function userSource(ctx: ScimContext, base: string): SearchSource<StoredUser> {
  return {
    kind: 'user',
    spec: USER_SPEC,
    relatedAttribute: 'groups',
    load: (ids, related) => ctx.queries.users(ids, { groups: related }),
    represent: (record) => userToScim(record, base),
    index: (attribute) => {
      switch (attribute) {
        case 'username':
          return (value) => ctx.queries.userIds('userName', value);
        case 'externalid':
          return (value) => ctx.queries.userIds('externalId', value);
        case 'emails':
        case 'emails.value':
          return (value) => ctx.queries.userIds('email', value);
        case 'groups':
        case 'groups.value':
          return (value) => ctx.queries.userIds('group', value);
        case 'id':
          return (value) => Promise.resolve([value]);
        default:
          return undefined;
      }
    },
  };
}

async function listUsers(ctx: ScimContext, req: Request, res: Response, request: ListRequest): Promise<void> {
  const base = ctx.base(req);
  const related = wants(request.projection, 'groups');
  const result = await search(userSource(ctx, base), ctx.queries, { ...request, related });
  const resources = result.records.map((record) => project(userToScim(record, base), request.projection));
  res.json(listResponse(resources, result.total, request.startIndex));
}

function userId(req: Request): string {
  return pathId('User', String(req.params.id));
}

/** The stored user, with its groups when the answer shows them. */
async function readUser(ctx: ScimContext, id: string, projection: Projection): Promise<StoredUser> {
  const [stored] = await ctx.queries.users([id], { groups: wants(projection, 'groups') });
  if (!stored) throw resourceNotFound('User', id);
  return stored;
}

function respond(ctx: ScimContext, req: Request, res: Response, stored: StoredUser, status = 200): void {
  const base = ctx.base(req);
  if (status === 201) res.location(`${base}/Users/${stored.id}`);
  res.status(status).json(project(userToScim(stored, base), projectionFromQuery(USER_SPEC, queryOf(req))));
}

async function getUser(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const stored = await readUser(ctx, userId(req), projectionFromQuery(USER_SPEC, queryOf(req)));
  respond(ctx, req, res, stored);
}

async function createUser(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const resource = coerceResource(USER_SPEC, normaliseResource(USER_SPEC, resourceBody(req)));
  respond(ctx, req, res, await write(ctx, req, userFromScim(randomUUID(), resource)), 201);
}

/** PUT replaces the resource; `externalId` and `active` stay when the body does not assert them. */
async function replaceUser(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const id = userId(req);
  const body = resourceBody(req);
  const stored = await ctx.locks.run(`user:${id}`, async () => {
    const current = await readUser(ctx, id, projectionFromQuery(USER_SPEC, queryOf(req)));
    const resource = coerceResource(USER_SPEC, normaliseResource(USER_SPEC, body));
    const kept: KeptUserAttributes = { externalId: current.user.externalId, active: current.user.active };
    return write(ctx, req, userFromScim(id, resource, kept), current);
  });
  respond(ctx, req, res, stored);
}

async function patchUser(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const id = userId(req);
  const operations = parsePatchRequest(USER_SPEC, req.body);
  const stored = await ctx.locks.run(`user:${id}`, async () => {
    const current = await readUser(ctx, id, projectionFromQuery(USER_SPEC, queryOf(req)));
    const scim = userToScim({ ...current, groups: [] }, ctx.base(req));
    const { id: _id, meta: _meta, schemas: _schemas, ...editable } = scim;
    const patched = applyPatch(USER_SPEC, editable, operations);
    // Nothing kept: what the patched resource lacks was removed, and is unassigned (`active` too).
    return write(ctx, req, userFromScim(id, coerceResource(USER_SPEC, patched), {}), current);
  });
  respond(ctx, req, res, stored);
}

/**
 * Stores a user unless nothing changed (a userName held by another user is a 409) and returns it
 * as now stored, without reading it back: `meta` times are the store clock's at the write.
 */
async function write(
  ctx: ScimContext,
  req: Request,
  next: ReturnType<typeof userFromScim>,
  current?: StoredUser,
): Promise<StoredUser> {
  const extra = next.extra ?? undefined;
  if (current && jsonEqual(next.user, current.user) && jsonEqual(extra, current.extra)) return current;
  const now = ctx.now();
  const result = await ctx.api.upsertUser(next.user, {
    mode: 'unique',
    signal: scimSignal(req),
    extra: next.extra,
    ...(current ? { ifVersion: current.version } : {}),
  });
  if (result.status === 'owned-elsewhere') throw resourceNotFound('User', next.user.id);
  // The store stamps a change of the managed part only; extra attributes alone keep the time. A
  // parked user (another input holds its userName: a conflict for an admin) is stored all the same.
  const stamped = result.status === 'created' || result.status === 'updated' || result.status === 'parked';
  return {
    id: next.user.id,
    user: next.user,
    extra,
    createdMs: current?.createdMs ?? now,
    version: (current?.version ?? 0) + 1,
    modifiedMs: stamped ? now : (current?.modifiedMs ?? now),
    ...(current?.groups ? { groups: current.groups } : {}),
  };
}

async function deleteUser(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const id = userId(req);
  const result = await ctx.locks.run(`user:${id}`, () => ctx.api.deleteUser(id, { signal: scimSignal(req) }));
  // Another input's user is not the IdP's to delete: it does not exist for it.
  if (result.status === 'absent' || result.status === 'owned-elsewhere') throw resourceNotFound('User', id);
  res.status(204).end();
}

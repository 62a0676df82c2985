import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { FilterNode } from '../../domain/scim-filter.js';
import { normaliseResource, qualifyFilter } from './dialect.js';
import {
  listRequestFromQuery,
  listRequestFromSearch,
  projectionFromQuery,
  type ListRequest,
} from './list-request.js';
import type { PatchOperation } from './patch-operation.js';
import { parsePatchRequest } from './patch-request.js';
import { FULL, project, wants, type Projection } from './projection.js';
import { assertedAttributes, coerceResource } from './resource-coerce.js';
import { pathId } from './resource-id.js';
import type { ResourceRules, StoredResource } from './resource-rules.js';
import { search, type SearchSource } from './resource-search.js';
import { listResponse, queryOf, resourceBody, scimSignal, type ScimContext } from './scim-context.js';
import { resourceNotFound } from './scim-errors.js';
import type { JsonObject } from './scim-json.js';
import type { ResourceSpec } from './scim-schema.js';

/**
 * One resource type's endpoint (RFC 7644 §3), /Users or /Groups as its rules say: create (201 +
 * Location), get, list and search (§3.4.2, §3.4.3), replace (PUT), PATCH (200 with the resource,
 * or 204 where the rules say so), delete (204). Reads come from the desired state; every accepted
 * write goes through the DesiredStateApi, made by the kind's rules (users.rules.ts,
 * groups.rules.ts). PUT and PATCH read, change and write back under the identity's lock
 * (keyed-lock.ts). The projection (`attributes` / `excludedAttributes`) is read before any write,
 * so a request refused for it changes nothing.
 */
export function resourceRouter<R extends StoredResource>(ctx: ScimContext, rules: ResourceRules<R>): Router {
  const router = Router();
  const { endpoint } = rules.spec;
  router.get(endpoint, (req, res) =>
    list(ctx, rules, req, res, listRequestFromQuery(rules.spec, queryOf(req))),
  );
  router.post(`${endpoint}/.search`, (req, res) =>
    list(ctx, rules, req, res, listRequestFromSearch(rules.spec, req.body)),
  );
  router.get(`${endpoint}/:id`, (req, res) => answer(ctx, rules, req, res, { id: idOf(rules.spec, req) }));
  router.post(endpoint, (req, res) => create(ctx, rules, req, res));
  router.put(`${endpoint}/:id`, (req, res) => rewrite(ctx, rules, req, res, replacement));
  router.patch(`${endpoint}/:id`, (req, res) => rewrite(ctx, rules, req, res, patching));
  router.delete(`${endpoint}/:id`, (req, res) => remove(ctx, rules, req, res));
  return router;
}

/** What a search reads: the filter and the page. */
export interface PageRequest {
  filter?: FilterNode;
  startIndex: number;
  count: number;
}

/** One page of a kind's identities that match, projected; `total` counts every match. */
export async function findResources<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  base: string,
  request: PageRequest,
  projection: Projection,
): Promise<{ total: number; resources: JsonObject[] }> {
  const related = wants(projection, rules.related);
  const { startIndex, count } = request;
  const filter = request.filter && qualifyFilter(rules.spec, request.filter);
  const page = { ...(filter ? { filter } : {}), startIndex, count, related };
  const result = await search(searchSource(ctx, rules, base), ctx.queries, page);
  const resources = result.records.map((record) => project(rules.toScim(record, base), projection));
  return { total: result.total, resources };
}

function searchSource<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  base: string,
): SearchSource<R> {
  return {
    kind: rules.kind,
    spec: rules.spec,
    relatedAttribute: rules.related,
    load: (ids, related) => rules.load(ctx.queries, ids, related),
    represent: (record) => rules.toScim(record, base),
    index: (attribute) =>
      attribute === 'id' ? (value) => Promise.resolve([value]) : rules.index(ctx.queries, attribute),
  };
}

async function list<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
  res: Response,
  request: ListRequest,
): Promise<void> {
  const found = await findResources(ctx, rules, ctx.base(req), request, request.projection);
  res.json(listResponse(found.resources, found.total, request.startIndex));
}

function idOf(spec: ResourceSpec, req: Request): string {
  return pathId(spec.resourceType, String(req.params.id));
}

function projectionOf(spec: ResourceSpec, req: Request): Projection {
  return projectionFromQuery(spec, queryOf(req));
}

/** The resource of a POST body: the IdP's dialect normalised, then checked (RFC 7643). */
function checkedResource(spec: ResourceSpec, body: JsonObject): JsonObject {
  return coerceResource(spec, normaliseResource(spec, body));
}

/** The stored identity, with its related list when asked for; a SCIM 404 when there is none. */
async function readOne<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  id: string,
  related: boolean,
): Promise<R> {
  const [stored] = await rules.load(ctx.queries, [id], related);
  if (!stored) throw resourceNotFound(rules.spec.resourceType, id);
  return stored;
}

interface Answer<R> {
  id: string;
  /** The identity as a write left it; read when absent. */
  written?: R | undefined;
  status?: 200 | 201;
  projection?: Projection;
}

async function answer<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
  res: Response,
  { id, written, status = 200, projection = projectionOf(rules.spec, req) }: Answer<R>,
): Promise<void> {
  const base = ctx.base(req);
  const stored = written ?? (await readOne(ctx, rules, id, wants(projection, rules.related)));
  if (status === 201) res.location(`${base}${rules.spec.endpoint}/${id}`);
  res.status(status).json(project(rules.toScim(stored, base), projection));
}

async function create<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
  res: Response,
): Promise<void> {
  const body = resourceBody(req);
  const projection = projectionOf(rules.spec, req);
  const written = await rules.create(ctx, req, randomUUID(), checkedResource(rules.spec, body));
  await answer(ctx, rules, req, res, { id: written.id, written, status: 201, projection });
}

/** What a PUT or a PATCH changes, read from the request before the identity is. */
interface Rewrite<R> {
  /** The PATCH operations (none for a PUT): they may need the identity's related list. */
  operations: readonly PatchOperation[];
  /** Changes the current identity and writes it; returns it as `ResourceRules.replace` does. */
  write(current: R): Promise<R | undefined>;
  /** Whether an answer without asked-for attributes is a 204 without a body. */
  noContent: boolean;
}

/**
 * PUT replaces the resource (RFC 7644 §3.5.1): what the body names with null or [] is emptied;
 * what it leaves out is not asserted, and the rules say what stays.
 */
function replacement<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
): Rewrite<R> {
  const body = resourceBody(req);
  return {
    operations: [],
    write: (current) => {
      const normalised = normaliseResource(rules.spec, body);
      const resource = coerceResource(rules.spec, normalised);
      return rules.replace(ctx, req, current, resource, assertedAttributes(rules.spec, normalised));
    },
    noContent: false,
  };
}

/** PATCH (RFC 7644 §3.5.2): the operations apply all or nothing. */
function patching<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
): Rewrite<R> {
  const operations = parsePatchRequest(rules.spec, req.body);
  return {
    operations,
    write: (current) => rules.patch(ctx, req, current, operations),
    noContent: rules.patchAnswersNoContent,
  };
}

/**
 * PUT and PATCH: read the identity, change it and write it back under its lock (a write that meets
 * another process's change reads again, keyed-lock.ts), then answer.
 */
async function rewrite<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
  res: Response,
  readRequest: (ctx: ScimContext, rules: ResourceRules<R>, req: Request) => Rewrite<R>,
): Promise<void> {
  const id = idOf(rules.spec, req);
  const change = readRequest(ctx, rules, req);
  const projection = projectionOf(rules.spec, req);
  const written = await ctx.locks.run(`${rules.kind}:${id}`, async () => {
    const current = await readOne(ctx, rules, id, rules.readsRelated(projection, change.operations));
    return change.write(current);
  });
  if (change.noContent && projection === FULL) {
    res.status(204).end();
    return;
  }
  await answer(ctx, rules, req, res, { id, written, projection });
}

async function remove<R extends StoredResource>(
  ctx: ScimContext,
  rules: ResourceRules<R>,
  req: Request,
  res: Response,
): Promise<void> {
  const id = idOf(rules.spec, req);
  const result = await ctx.locks.run(`${rules.kind}:${id}`, () =>
    rules.delete(ctx.api, id, { signal: scimSignal(req) }),
  );
  // Another input's identity is not the IdP's to delete: it does not exist for it.
  if (result.status === 'absent' || result.status === 'owned-elsewhere') {
    throw resourceNotFound(rules.spec.resourceType, id);
  }
  res.status(204).end();
}

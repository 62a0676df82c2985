import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import {
  findResourceSchema,
  RESOURCE_SCHEMAS,
  resourceType,
  schemaRepresentation,
  serviceProviderConfig,
} from './discovery.js';
import type { FaultPlan } from './faults.js';
import { queryParameter, readListParameters } from './list-query.js';
import { readPatchRequest } from './patch-message.js';
import { project, readSelection, type AttributeSelection } from './target-projection.js';
import { groupEndpoint, userEndpoint, type ResourceEndpoint } from './resource-endpoints.js';
import type { ResourceStore } from './resource-store.js';
import { badRequest, notFound, ScimError, sendScim, sendScimError, sendScimFault } from './target-errors.js';
import { LIST_RESPONSE_SCHEMA, type ListResponse, type ScimResource } from './scim-types.js';

/** The platform's `/api/scim/v2` endpoints (RFC 7644 §3), behind scim-pipeline.ts. */

export interface ScimRouterParts {
  store: ResourceStore;
  faults: FaultPlan;
  pageCap: number;
  /** The SCIM base URL, known once the port is. */
  scimUrl: () => string;
  bodyLimitBytes: number;
}

/** RFC 7644 §3.1: clients send application/scim+json; plain application/json is accepted too. */
const JSON_TYPES = ['application/json', 'application/scim+json'];

export function scimRouter(parts: ScimRouterParts): Router {
  const router = express.Router();
  router.use(express.json({ type: JSON_TYPES, limit: parts.bodyLimitBytes }));
  mountDiscovery(router, parts);
  for (const endpoint of [userEndpoint(parts.store), groupEndpoint(parts.store)])
    mountResource(router, endpoint, parts);
  router.use((req, res) => {
    sendScimError(res, new ScimError(404, `No SCIM endpoint ${req.path}`));
  });
  router.use(scimErrorHandler);
  return router;
}

function mountDiscovery(router: Router, parts: ScimRouterParts): void {
  router.get('/ServiceProviderConfig', (_req, res) => {
    const capabilities = {
      scimUrl: parts.scimUrl(),
      pageCap: parts.pageCap,
      patchSupported: parts.faults.patchSupported,
    };
    sendScim(res, 200, serviceProviderConfig(capabilities));
  });
  router.get('/ResourceTypes', (_req, res) => {
    sendScim(res, 200, listOf(RESOURCE_SCHEMAS.map((schema) => resourceType(schema, parts.scimUrl()))));
  });
  router.get('/Schemas', (_req, res) => {
    sendScim(
      res,
      200,
      listOf(RESOURCE_SCHEMAS.map((schema) => schemaRepresentation(schema, parts.scimUrl()))),
    );
  });
  router.get('/ResourceTypes/:name', (req, res) => {
    const schema = findResourceSchema(req.params.name);
    if (schema === undefined) throw notFound(req.params.name);
    sendScim(res, 200, resourceType(schema, parts.scimUrl()));
  });
  router.get('/Schemas/:id', (req, res) => {
    const schema = findResourceSchema(req.params.id);
    if (schema === undefined) throw notFound(req.params.id);
    sendScim(res, 200, schemaRepresentation(schema, parts.scimUrl()));
  });
}

type SelectionReader = (req: Request) => AttributeSelection | undefined;

function mountResource(router: Router, endpoint: ResourceEndpoint, parts: ScimRouterParts): void {
  const base = endpoint.schema.endpoint;
  const selectionOf: SelectionReader = (req) =>
    readSelection(
      queryParameter(req, 'attributes'),
      queryParameter(req, 'excludedAttributes'),
      endpoint.schema,
    );
  mountCollection(router, endpoint, parts, selectionOf);
  mountItem(router, endpoint, parts, selectionOf);
  router.all([base, `${base}/:id`], (req, res) => {
    const collection = req.path.toLowerCase() === base.toLowerCase();
    res.setHeader('Allow', collection ? 'GET, POST' : 'GET, PUT, PATCH, DELETE');
    sendScimFault(res, 405, `${req.method} is not allowed on ${req.path}`);
  });
}

/** RFC 7644 §3.4.2 list and §3.3 create. */
function mountCollection(
  router: Router,
  endpoint: ResourceEndpoint,
  parts: ScimRouterParts,
  selectionOf: SelectionReader,
): void {
  const base = endpoint.schema.endpoint;
  router.get(base, (req, res) => {
    const { filter, startIndex, count } = readListParameters(req, parts.pageCap);
    const selection = selectionOf(req);
    const query = { ...(filter === undefined ? {} : { filter }), offset: startIndex - 1, count };
    const result = endpoint.list(query);
    const page = result.resources.map((resource) => project(resource, selection));
    sendScim(res, 200, { ...listOf(page), totalResults: result.totalResults, startIndex });
  });
  router.post(base, (req, res) => {
    const created = endpoint.create(requireBody(req));
    res.setHeader('Location', created.meta.location);
    sendScim(res, 201, project(created, selectionOf(req)));
  });
}

/** RFC 7644 §3.4.1 get, §3.5.1 replace, §3.5.2 modify, §3.6 delete. */
function mountItem(
  router: Router,
  endpoint: ResourceEndpoint,
  parts: ScimRouterParts,
  selectionOf: SelectionReader,
): void {
  const path = `${endpoint.schema.endpoint}/:id`;
  // An unknown id is a 404 whatever the body, so it is checked before the body is read.
  const existing = (id: string): ScimResource => endpoint.get(id) ?? throwNotFound(id);
  router.get(path, (req, res) => {
    sendScim(res, 200, project(existing(idOf(req)), selectionOf(req)));
  });
  router.put(path, (req, res) => {
    existing(idOf(req));
    sendScim(res, 200, project(endpoint.replace(idOf(req), requireBody(req)), selectionOf(req)));
  });
  router.patch(path, (req, res) => {
    if (!parts.faults.patchSupported) {
      res.locals.fault = 'patch-unsupported';
      sendScimFault(res, 501, 'PATCH is not supported');
      return;
    }
    existing(idOf(req));
    const operations = readPatchRequest(requireBody(req));
    sendScim(res, 200, project(endpoint.patch(idOf(req), operations), selectionOf(req)));
  });
  router.delete(path, (req, res) => {
    endpoint.delete(idOf(req));
    sendScim(res, 204);
  });
}

function idOf(req: Request): string {
  const id = req.params.id;
  return typeof id === 'string' ? id : '';
}

function throwNotFound(id: string): never {
  throw notFound(id);
}

function listOf<T>(resources: T[]): ListResponse<T> {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

function requireBody(req: Request): unknown {
  if (req.body !== undefined) return req.body;
  if (req.headers['content-type'] !== undefined && !req.is(JSON_TYPES)) {
    const detail = 'The request body must be application/scim+json or application/json';
    throw new ScimError(415, detail);
  }
  throw badRequest('invalidSyntax', 'The request needs a JSON body');
}

/** body-parser's errors carry a `type`; everything else is a ScimError or a bug. */
const scimErrorHandler: ErrorRequestHandler = (error: unknown, _req, res: Response, _next) => {
  const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined;
  if (type === 'entity.parse.failed')
    sendScimError(res, badRequest('invalidSyntax', 'The request body is not valid JSON'));
  else if (type === 'entity.too.large') sendScimFault(res, 413, 'The request body is over the limit');
  else if (type !== undefined) sendScimFault(res, 400, 'The request body could not be read');
  else sendScimError(res, error);
};

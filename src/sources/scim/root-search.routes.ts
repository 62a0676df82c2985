import { Router, type Request, type Response } from 'express';
import { groupToScim } from './group-resource.js';
import { groupSource } from './groups.routes.js';
import { searchParameters } from './list-request.js';
import { parseProjection, project, wants } from './projection.js';
import { search } from './resource-search.js';
import { listResponse, type ScimContext } from './scim-context.js';
import { GROUP_SPEC, USER_SPEC } from './scim-schema.js';
import { userToScim } from './user-resource.js';
import { userSource } from './users.routes.js';

/**
 * `POST /.search` at the server root (RFC 7644 §3.4.3): one query across every resource type. The
 * filter is evaluated on Users and on Groups (an attribute a type lacks simply does not match);
 * the results are the matching users in creation order, then the matching groups, each with its
 * own `schemas` and the attributes asked for; `totalResults` counts both, and startIndex / count
 * page over that one sequence.
 */
export function rootSearchRouter(ctx: ScimContext): Router {
  const router = Router();
  router.post('/.search', (req, res) => searchAll(ctx, req, res));
  return router;
}

async function searchAll(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const { filter, startIndex, count, attributes, excludedAttributes } = searchParameters(req.body);
  const base = ctx.base(req);
  const userProjection = parseProjection(USER_SPEC, attributes, excludedAttributes);
  const groupProjection = parseProjection(GROUP_SPEC, attributes, excludedAttributes);
  const users = await search(userSource(ctx, base), ctx.queries, {
    ...(filter ? { filter } : {}),
    startIndex,
    count,
    related: wants(userProjection, 'groups'),
  });
  // The groups' part of the sequence starts where the users' ends.
  const groups = await search(groupSource(ctx, base), ctx.queries, {
    ...(filter ? { filter } : {}),
    startIndex: Math.max(1, startIndex - users.total),
    count: count - users.records.length,
    related: wants(groupProjection, 'members'),
  });
  const resources = [
    ...users.records.map((record) => project(userToScim(record, base), userProjection)),
    ...groups.records.map((record) => project(groupToScim(record, base), groupProjection)),
  ];
  res.json(listResponse(resources, users.total + groups.total, startIndex));
}

import { Router, type Request, type Response } from 'express';
import { groupRules } from './groups.rules.js';
import { searchParameters } from './list-request.js';
import { parseProjection } from './projection.js';
import { findResources } from './resource.routes.js';
import { listResponse, type ScimContext } from './scim-context.js';
import { userRules } from './users.rules.js';

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
  const userProjection = parseProjection(userRules.spec, attributes, excludedAttributes);
  const groupProjection = parseProjection(groupRules.spec, attributes, excludedAttributes);
  const only = filter ? { filter } : {};
  const users = await findResources(ctx, userRules, base, { ...only, startIndex, count }, userProjection);
  // The groups' part of the sequence starts where the users' ends.
  const groupPage = {
    ...only,
    startIndex: Math.max(1, startIndex - users.total),
    count: count - users.resources.length,
  };
  const groups = await findResources(ctx, groupRules, base, groupPage, groupProjection);
  const resources = [...users.resources, ...groups.resources];
  res.json(listResponse(resources, users.total + groups.total, startIndex));
}

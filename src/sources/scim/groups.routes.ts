import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { DesiredChange } from '../../domain/desired-change.js';
import type { StoredGroup } from '../../store/desired-state.queries.js';
import { normaliseResource } from './dialect.js';
import {
  displaysExtra,
  displaysOf,
  groupFromScim,
  groupToScim,
  memberDisplays,
  memberValues,
  type MemberDisplays,
} from './group-resource.js';
import {
  isMembersOperation,
  needsCurrentMembers,
  planMembership,
  refuseNestedGroups,
} from './group-membership.js';
import {
  listRequestFromQuery,
  listRequestFromSearch,
  projectionFromQuery,
  type ListRequest,
} from './list-request.js';
import { applyPatch } from './patch-apply.js';
import type { PatchOperation } from './patch-operation.js';
import { parsePatchRequest } from './patch-request.js';
import { FULL, project, wants, type Projection } from './projection.js';
import { coerceResource } from './resource-coerce.js';
import { pathId } from './resource-id.js';
import { search, type SearchSource } from './resource-search.js';
import { listResponse, queryOf, resourceBody, scimSignal, type ScimContext } from './scim-context.js';
import { resourceNotFound } from './scim-errors.js';
import { jsonEqual } from './scim-json.js';
import { GROUP_SPEC } from './scim-schema.js';

/**
 * /Groups (RFC 7644 §3). Membership changes of a PATCH become add/remove of member ids applied
 * atomically with the group's own changes (group-membership.ts); a PATCH answers 204 unless the
 * client asks for attributes (RFC 7644 §3.5.2), so a membership change never ships the member list.
 */
export function groupsRouter(ctx: ScimContext): Router {
  const router = Router();
  router.get('/Groups', (req, res) =>
    listGroups(ctx, req, res, listRequestFromQuery(GROUP_SPEC, queryOf(req))),
  );
  router.post('/Groups/.search', (req, res) =>
    listGroups(ctx, req, res, listRequestFromSearch(GROUP_SPEC, req.body)),
  );
  router.get('/Groups/:id', (req, res) => answer(ctx, req, res, groupId(req)));
  router.post('/Groups', (req, res) => createGroup(ctx, req, res));
  router.put('/Groups/:id', (req, res) => replaceGroup(ctx, req, res));
  router.patch('/Groups/:id', (req, res) => patchGroup(ctx, req, res));
  router.delete('/Groups/:id', (req, res) => deleteGroup(ctx, req, res));
  return router;
}

export function groupSource(ctx: ScimContext, base: string): SearchSource<StoredGroup> {
  return {
    kind: 'group',
    spec: GROUP_SPEC,
    relatedAttribute: 'members',
    load: (ids, related) => ctx.queries.groups(ids, { members: related }),
    represent: (record) => groupToScim(record, base),
    index: (attribute) => {
      switch (attribute) {
        case 'displayname':
          return (value) => ctx.queries.groupIds('displayName', value);
        case 'externalid':
          return (value) => ctx.queries.groupIds('externalId', value);
        case 'members':
        case 'members.value':
          return (value) => ctx.queries.groupIds('member', value);
        case 'id':
          return (value) => Promise.resolve([value]);
        default:
          return undefined;
      }
    },
  };
}

async function listGroups(
  ctx: ScimContext,
  req: Request,
  res: Response,
  request: ListRequest,
): Promise<void> {
  const base = ctx.base(req);
  const related = wants(request.projection, 'members');
  const result = await search(groupSource(ctx, base), ctx.queries, { ...request, related });
  const resources = result.records.map((record) => project(groupToScim(record, base), request.projection));
  res.json(listResponse(resources, result.total, request.startIndex));
}

function groupId(req: Request): string {
  return pathId('Group', String(req.params.id));
}

async function readGroup(ctx: ScimContext, id: string, members: boolean): Promise<StoredGroup> {
  const [stored] = await ctx.queries.groups([id], { members });
  if (!stored) throw resourceNotFound('Group', id);
  return stored;
}

async function answer(
  ctx: ScimContext,
  req: Request,
  res: Response,
  id: string,
  status = 200,
  projection: Projection = projectionFromQuery(GROUP_SPEC, queryOf(req)),
): Promise<void> {
  const base = ctx.base(req);
  const stored = await readGroup(ctx, id, wants(projection, 'members'));
  if (status === 201) res.location(`${base}/Groups/${id}`);
  res.status(status).json(project(groupToScim(stored, base), projection));
}

async function createGroup(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const resource = coerceResource(GROUP_SPEC, normaliseResource(GROUP_SPEC, resourceBody(req)));
  const id = randomUUID();
  const group = groupFromScim(id, resource);
  const values = memberValues(resource.members, 'POST /Groups') ?? [];
  const members = values.map((member) => member.id);
  await refuseNestedGroups(ctx.queries, members, 'POST /Groups');
  const extra = displaysExtra(displaysOf(values)) ?? undefined;
  const now = ctx.now();
  await ctx.api.upsertGroup({ ...group, members }, { mode: 'unique', signal: scimSignal(req), extra });
  // Answered from what was written, as POST /Users is (meta times: the store clock's at the write).
  const base = ctx.base(req);
  const stored: StoredGroup = {
    id,
    group,
    members: [...members].sort(),
    extra,
    createdMs: now,
    modifiedMs: now,
    version: 1,
  };
  res.location(`${base}/Groups/${id}`);
  res.status(201).json(project(groupToScim(stored, base), projectionFromQuery(GROUP_SPEC, queryOf(req))));
}

/** PUT replaces the group; members and externalId stay when the body does not assert them. */
async function replaceGroup(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const id = groupId(req);
  const body = resourceBody(req);
  await ctx.locks.run(`group:${id}`, async () => {
    const current = await readGroup(ctx, id, false);
    const resource = coerceResource(GROUP_SPEC, normaliseResource(GROUP_SPEC, body));
    const group = groupFromScim(id, resource, current.group.externalId);
    const values = memberValues(resource.members, `PUT /Groups/${id}`);
    const members = values?.map((member) => member.id);
    if (members) await refuseNestedGroups(ctx.queries, members, `PUT /Groups/${id}`);
    // Asserted members replace the displays kept for them; otherwise both stay (extra undefined).
    const extra = values ? displaysExtra(displaysOf(values)) : undefined;
    await ctx.api.upsertGroup(
      { ...group, ...(members === undefined ? {} : { members }) },
      { mode: 'unique', signal: scimSignal(req), ifVersion: current.version, extra },
    );
  });
  await answer(ctx, req, res, id);
}

async function patchGroup(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const id = groupId(req);
  const operations = parsePatchRequest(GROUP_SPEC, req.body);
  await ctx.locks.run(`group:${id}`, async () => {
    const changes = await groupPatchChanges(ctx, req, id, operations);
    if (changes.length > 0) await ctx.api.apply(changes);
  });
  const projection = projectionFromQuery(GROUP_SPEC, queryOf(req));
  if (projection === FULL) {
    res.status(204).end();
    return;
  }
  await answer(ctx, req, res, id, 200, projection);
}

/** The changes one group PATCH makes, to be applied all together. */
async function groupPatchChanges(
  ctx: ScimContext,
  req: Request,
  id: string,
  operations: readonly PatchOperation[],
): Promise<DesiredChange[]> {
  const memberOperations = operations.filter(isMembersOperation);
  const current = await readGroup(ctx, id, needsCurrentMembers(memberOperations));
  const options = { mode: 'unique' as const, signal: scimSignal(req) };
  const changes: DesiredChange[] = [];
  const others = operations.filter((operation) => !isMembersOperation(operation));
  const displays = memberDisplays(current.extra);
  const plan = planMembership(memberOperations, current.members, displays);
  await refuseNestedGroups(ctx.queries, [...(plan.replace ?? []), ...plan.add], `PATCH /Groups/${id}`);
  const extra = sameDisplays(plan.displays, displays) ? {} : { extra: displaysExtra(plan.displays) };
  if (others.length > 0 || plan.replace || 'extra' in extra) {
    const scim = groupToScim({ ...current, members: [] }, ctx.base(req));
    const { id: _id, meta: _meta, schemas: _schemas, ...editable } = scim;
    const group = groupFromScim(id, coerceResource(GROUP_SPEC, applyPatch(GROUP_SPEC, editable, others)));
    if (!jsonEqual(group, current.group) || plan.replace || 'extra' in extra) {
      const members = plan.replace ? { members: plan.replace } : {};
      changes.push({
        op: 'upsertGroup',
        group: { ...group, ...members },
        ...options,
        ...extra,
        ifVersion: current.version,
      });
    }
  }
  if (plan.add.length > 0) changes.push({ op: 'addMembers', groupId: id, userIds: plan.add, ...options });
  if (plan.remove.length > 0)
    changes.push({ op: 'removeMembers', groupId: id, userIds: plan.remove, ...options });
  return changes;
}

function sameDisplays(a: MemberDisplays, b: MemberDisplays): boolean {
  return a.size === b.size && [...a].every(([id, display]) => b.get(id) === display);
}

async function deleteGroup(ctx: ScimContext, req: Request, res: Response): Promise<void> {
  const id = groupId(req);
  const result = await ctx.locks.run(`group:${id}`, () =>
    ctx.api.deleteGroup(id, { signal: scimSignal(req) }),
  );
  // Another input's group is not the IdP's to delete: it does not exist for it.
  if (result.status === 'absent' || result.status === 'owned-elsewhere') throw resourceNotFound('Group', id);
  res.status(204).end();
}

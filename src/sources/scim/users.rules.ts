import type { Request } from 'express';
import type { StoredUser, UserIndex } from '../../store/desired-state.queries.js';
import { wants } from './projection.js';
import { indexedBy, patchResource, type ResourceRules } from './resource-rules.js';
import { scimSignal, type ScimContext } from './scim-context.js';
import { resourceNotFound } from './scim-errors.js';
import { jsonEqual } from './scim-json.js';
import { USER_SPEC } from './scim-schema.js';
import { userFromScim, userToScim } from './user-resource.js';

/** Filter attributes (canonical paths) answered from the store's user indexes. */
const INDEXES: ReadonlyMap<string, UserIndex> = new Map([
  ['username', 'userName'],
  ['externalid', 'externalId'],
  ['emails', 'email'],
  ['emails.value', 'email'],
  ['groups', 'group'],
  ['groups.value', 'group'],
]);

/**
 * /Users (RFC 7643 §4.1): a write stores the managed user and its extra attributes
 * (user-resource.ts) in one `upsertUser`, `unique` (a userName held by another user is a 409
 * uniqueness), and answers from what it wrote. A PATCH answers 200 with the resource.
 */
export const userRules: ResourceRules<StoredUser> = {
  kind: 'user',
  spec: USER_SPEC,
  related: 'groups',
  load: (queries, ids, related) => queries.users(ids, { groups: related }),
  toScim: userToScim,
  index: indexedBy(INDEXES, (queries, index, value) => queries.userIds(index, value)),
  create: (ctx, req, id, resource) => write(ctx, req, userFromScim(id, resource)),
  // The answer shows the current groups: the write does not change them.
  readsRelated: (projection) => wants(projection, 'groups'),
  /**
   * What the body leaves out is replaced by nothing, but `externalId` and `active` stay when it
   * does not assert them (RFC 7644 §3.5.1); given as null, they are unassigned (RFC 7643 §2.5).
   */
  replace: (ctx, req, current, resource, asserted) => {
    const kept = {
      externalId: asserted.has('externalId') ? undefined : current.user.externalId,
      active: asserted.has('active') ? undefined : current.user.active,
    };
    return write(ctx, req, userFromScim(current.id, resource, kept), current);
  },
  patch: (ctx, req, current, operations) => {
    const scim = userToScim({ ...current, groups: [] }, ctx.base(req));
    const patched = patchResource(USER_SPEC, scim, operations);
    // Nothing kept: what the patched resource lacks was removed, and is unassigned (`active` too).
    return write(ctx, req, userFromScim(current.id, patched, {}), current);
  },
  patchAnswersNoContent: false,
  delete: (api, id, options) => api.deleteUser(id, options),
};

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

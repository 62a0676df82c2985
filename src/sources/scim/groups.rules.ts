import type { Request } from 'express';
import type { DesiredChange } from '../../domain/desired-change.js';
import type { GroupIndex, StoredGroup } from '../../store/desired-state.queries.js';
import {
  isMembersOperation,
  needsCurrentMembers,
  planMembership,
  refuseNestedGroups,
} from './group-membership.js';
import {
  displaysExtra,
  displaysOf,
  groupFromScim,
  groupToScim,
  memberDisplays,
  memberValues,
  type MemberDisplays,
} from './group-resource.js';
import type { PatchOperation } from './patch-operation.js';
import { indexedBy, patchResource, type ResourceRules } from './resource-rules.js';
import { scimSignal, type ScimContext } from './scim-context.js';
import { jsonEqual, type JsonObject } from './scim-json.js';
import { GROUP_SPEC } from './scim-schema.js';

/** Filter attributes (canonical paths) answered from the store's group indexes. */
const INDEXES: ReadonlyMap<string, GroupIndex> = new Map([
  ['displayname', 'displayName'],
  ['externalid', 'externalId'],
  ['members', 'member'],
  ['members.value', 'member'],
]);

/**
 * /Groups (RFC 7643 §4.2): a write stores the group and its members, `unique` (a displayName held
 * by another group is a 409 uniqueness); a member that is a group is refused. Membership changes of
 * a PATCH become add/remove of member ids applied atomically with the group's own changes
 * (group-membership.ts); a PATCH answers 204 unless the client asks for attributes (RFC 7644
 * §3.5.2), so a membership change never ships the member list. PUT and PATCH answers read the
 * group back: what they leave of its members is the store's to say.
 */
export const groupRules: ResourceRules<StoredGroup> = {
  kind: 'group',
  spec: GROUP_SPEC,
  related: 'members',
  load: (queries, ids, related) => queries.groups(ids, { members: related }),
  toScim: groupToScim,
  index: indexedBy(INDEXES, (queries, index, value) => queries.groupIds(index, value)),
  create: createGroup,
  readsRelated: (_projection, operations) => needsCurrentMembers(operations.filter(isMembersOperation)),
  replace: replaceGroup,
  patch: async (ctx, req, current, operations) => {
    const changes = await patchChanges(ctx, req, current, operations);
    if (changes.length > 0) await ctx.api.apply(changes);
    return undefined;
  },
  patchAnswersNoContent: true,
  delete: (api, id, options) => api.deleteGroup(id, options),
};

async function createGroup(
  ctx: ScimContext,
  req: Request,
  id: string,
  resource: JsonObject,
): Promise<StoredGroup> {
  const group = groupFromScim(id, resource);
  const values = memberValues(resource.members, 'POST /Groups') ?? [];
  const members = values.map((member) => member.id);
  await refuseNestedGroups(ctx.queries, members, 'POST /Groups');
  const extra = displaysExtra(displaysOf(values)) ?? undefined;
  const now = ctx.now();
  await ctx.api.upsertGroup({ ...group, members }, { mode: 'unique', signal: scimSignal(req), extra });
  // Answered from what was written, as POST /Users is (meta times: the store clock's at the write).
  return { id, group, members: [...members].sort(), extra, createdMs: now, modifiedMs: now, version: 1 };
}

/**
 * PUT replaces the group. `members` or `externalId` given as null or [] (unassigned, RFC 7643 §2.5)
 * leave it without; left out, they are not asserted (RFC 7644 §3.5.1) and stay: Okta's App
 * Integration Wizard apps rename a group by PUT, and IdPs read groups with
 * `excludedAttributes=members` (docs/okta-scim.md, docs/entra-id.md).
 */
async function replaceGroup(
  ctx: ScimContext,
  req: Request,
  current: StoredGroup,
  resource: JsonObject,
  asserted: ReadonlySet<string>,
): Promise<undefined> {
  const { id } = current;
  const context = `PUT /Groups/${id}`;
  const keptExternalId = asserted.has('externalId') ? undefined : current.group.externalId;
  const group = groupFromScim(id, resource, keptExternalId);
  const values = asserted.has('members') ? (memberValues(resource.members, context) ?? []) : undefined;
  const members = values?.map((member) => member.id);
  if (members) await refuseNestedGroups(ctx.queries, members, context);
  // Asserted members replace the displays kept for them; otherwise both stay (extra undefined).
  const extra = values ? displaysExtra(displaysOf(values)) : undefined;
  await ctx.api.upsertGroup(
    { ...group, ...(members === undefined ? {} : { members }) },
    { mode: 'unique', signal: scimSignal(req), ifVersion: current.version, extra },
  );
  return undefined;
}

/** The changes one group PATCH makes, to be applied all together. */
async function patchChanges(
  ctx: ScimContext,
  req: Request,
  current: StoredGroup,
  operations: readonly PatchOperation[],
): Promise<DesiredChange[]> {
  const { id } = current;
  const options = { mode: 'unique' as const, signal: scimSignal(req) };
  const changes: DesiredChange[] = [];
  const others = operations.filter((operation) => !isMembersOperation(operation));
  const displays = memberDisplays(current.extra);
  const plan = planMembership(operations.filter(isMembersOperation), current.members, displays);
  await refuseNestedGroups(ctx.queries, [...(plan.replace ?? []), ...plan.add], `PATCH /Groups/${id}`);
  const extra = sameDisplays(plan.displays, displays) ? {} : { extra: displaysExtra(plan.displays) };
  if (others.length > 0 || plan.replace || 'extra' in extra) {
    const scim = groupToScim({ ...current, members: [] }, ctx.base(req));
    const group = groupFromScim(id, patchResource(GROUP_SPEC, scim, others));
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

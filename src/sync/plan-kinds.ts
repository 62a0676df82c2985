import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { DesiredGroup, DesiredUser } from '../domain/identity.js';
import { planGroup, planUser } from '../domain/sync-plan.js';
import type { ObservedUser } from '../domain/user-diff.js';
import type { MergeContext, PlanKindRules } from './plan-source.js';

/** Group members resolved per call. */
const MEMBER_BATCH = 20_000;

/**
 * Users: a user this plan matched to another account than the recorded one is written down (''
 * none: to be created), so that groups compare their members through this plan's matches.
 */
export const userRules: PlanKindRules<DesiredUser, undefined, ObservedUser> = {
  kind: 'user',
  parse: (item) => parseStoredUser(item.id, item.json),
  name: (user) => user.userName,
  read: async () => undefined,
  decide: ({ identity, item }, found) => planUser(identity, item.known, found),
  decided: (sink, { identity, item }, decision) => {
    if (decision.matched !== item.known.targetId) sink.writer.matched(identity.id, decision.matched ?? '');
  },
};

/**
 * Groups: members are compared through the users' target ids. Members left out as the reconciler
 * leaves them out; members still to be created (or another input's users without an account yet)
 * cannot match anything yet. A group losing members is a removal a hold keeps back.
 */
export const groupRules: PlanKindRules<DesiredGroup, Map<string, string>, ObservedGroup> = {
  kind: 'group',
  parse: (item) => parseStoredGroup(item.id, item.json, item.members ?? []),
  name: (group) => group.displayName,
  read: memberTargetsOf,
  decide: ({ identity, item, extra }, found) => {
    const memberIds = identity.members.flatMap((m) => {
      const target = extra.get(m);
      return target === undefined ? [] : [target === '' ? `pending:${m}` : target];
    });
    return planGroup(identity, memberIds, item.known, found);
  },
  decided: (sink, { identity }, decision) => {
    if (decision.removedMembers?.length) sink.writer.removal('group', identity.id);
  },
};

/**
 * The target id of every member of the chunk's groups ('' none yet; absent: left out): the
 * source's users, and other inputs' users (SPEC §6: memberships may name users of any input).
 */
async function memberTargetsOf(
  ctx: MergeContext,
  groups: readonly DesiredGroup[],
): Promise<Map<string, string>> {
  const members = [...new Set(groups.flatMap((g) => g.members))];
  const targets = new Map<string, string>();
  for (let i = 0; i < members.length; i += MEMBER_BATCH) {
    const batch = members.slice(i, i + MEMBER_BATCH);
    const found = await ctx.run.store.memberTargets(batch);
    batch.forEach((member, n) => {
      const target = found[n];
      if (target !== undefined) targets.set(member, target);
    });
  }
  return targets;
}

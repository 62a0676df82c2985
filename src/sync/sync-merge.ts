import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import {
  platformExternalId,
  type DesiredGroup,
  type DesiredUser,
  type IdentityKind,
} from '../domain/identity.js';
import { planGroup, planUser } from '../domain/sync-plan.js';
import type { ObservedUser } from '../domain/user-diff.js';
import {
  desiredIds,
  heldElsewhere,
  memberTargets,
  readChunk,
  type ChunkIdentity,
} from '../store/desired-state.bulk.js';
import type { FullSyncDeps } from './full-sync.context.js';
import type { LinkTally } from './link-tally.js';
import { Claims, prefetching, RecentClaims } from './plan-claims.js';
import { desired, planIdentity, type DecisionSink, type Desired } from './plan-identity.js';
import type { PlanTally } from './plan-tally.js';
import { PlanWriter } from './plan-writer.js';
import type { RunContext, SourceView } from './sync-read.js';

/** Identities planned per chunk: what the plan holds in memory at once, whatever the directory's size. */
export const PLAN_CHUNK = 1000;
/** Group members resolved per call. */
const MEMBER_BATCH = 20_000;

export interface MergeContext {
  deps: FullSyncDeps;
  run: RunContext;
  source: SourceView;
  tally: PlanTally;
  /** A link-only run's lists (SPEC §6). */
  link?: LinkTally;
  /** Told after each chunk how many identities were planned so far. */
  onChunk?: (planned: number) => Promise<void>;
  /** Listed resources claimed by a match though no managed identity's target (for the unmanaged). */
  claimedUnmanaged: Record<IdentityKind, number>;
  /**
   * Source identities with a desired state stored for the run's input: all of its desired ones,
   * when it equals their count.
   */
  storedInSource: Record<IdentityKind, number>;
}

/** The ids of the source in its order, a chunk at a time: the staged order, or the desired identities. */
export async function* sourceOrder(ctx: MergeContext, kind: IdentityKind): AsyncGenerator<string[]> {
  const { deps, run, source } = ctx;
  if (source[kind === 'user' ? 'users' : 'groups'].mode === 'z') {
    yield* desiredIds(deps.redis, deps.keys.all(kind));
    return;
  }
  const key = run.staging.key(kind === 'user' ? 'src:u:order' : 'src:g:order');
  for (let start = 0; ; start += PLAN_CHUNK) {
    const ids = await deps.redis.lrange(key, start, start + PLAN_CHUNK - 1);
    if (ids.length > 0) yield ids;
    if (ids.length < PLAN_CHUNK) return;
  }
}

/**
 * Plans the source's users a chunk at a time (SPEC §6): each user's desired state (staged or
 * stored), what the bridge knows of it, its candidates in the listing, the match (the first not
 * claimed earlier in the plan) and the decision (plan-identity.ts). What later chunks need — the
 * claims, the users matched elsewhere than recorded — is written to Redis with the chunk's changes.
 * The next chunks are read while this one is decided (their candidates cannot show this chunk's
 * claims yet: those are carried over in memory).
 */
export async function planSourceUsers(ctx: MergeContext): Promise<void> {
  const { deps, run } = ctx;
  const docs = run.staging.key('src:u:docs');
  const recent = new RecentClaims();
  const fetch = async (ids: string[]) => {
    const read = await readChunk(deps.redis, deps.keys, 'user', docs, ids);
    const chunk = read.filter(desired);
    const users = chunk.map((c) => parseStoredUser(c.id, c.json));
    const lookups = users.map((user, i) => ({
      ...(chunk[i]?.known.targetId ? { targetId: chunk[i].known.targetId } : {}),
      externalId: platformExternalId(user),
      name: user.userName.toLowerCase(),
    }));
    const [candidates, held] = await Promise.all([
      run.listing.candidates('user', lookups),
      heldElsewhere(deps.redis, deps.keys, 'user', run.scope, users.map(indexed)),
    ]);
    return { ids, read, chunk, users, lookups, candidates, held };
  };
  await prefetching(
    sourceOrder(ctx, 'user'),
    fetch,
    async ({ ids, read, chunk, users, lookups, candidates, held }) => {
      await run.cancel.check();
      ctx.storedInSource.user += read.filter((c) => storedForRun(ctx, c)).length;
      ctx.claimedUnmanaged.user += candidates.claimedUnmanaged;
      const sink = decisionSink(ctx, recent);
      for (const [i, user] of users.entries()) {
        const item = chunk[i] as Desired;
        const listed = await sink.claims.usable(candidates.lists[i], () =>
          run.listing.more('user', lookups[i]!),
        );
        const decision = planIdentity<ObservedUser>(sink, {
          kind: 'user',
          item,
          name: user.userName,
          listed,
          held: held[i],
          decide: (found) => planUser(user, item.known, found),
        });
        if (decision && decision.matched !== item.known.targetId)
          sink.writer.matched(user.id, decision.matched ?? '');
      }
      ctx.claimedUnmanaged.user += await run.listing.claim('user', sink.claims.toWrite());
      recent.push(sink.claims.mine());
      await sink.writer.flush();
      await ctx.onChunk?.(ids.length);
    },
  );
}

/** Plans the source's groups a chunk at a time, comparing members through the users' target ids. */
export async function planSourceGroups(ctx: MergeContext): Promise<void> {
  const { deps, run } = ctx;
  const docs = run.staging.key('src:g:docs');
  const recent = new RecentClaims();
  const fetch = async (ids: string[]) => {
    const read = await readChunk(deps.redis, deps.keys, 'group', docs, ids);
    const chunk = read.filter(desired);
    const groups = chunk.map((c) => parseStoredGroup(c.id, c.json, c.members ?? []));
    const lookups = groups.map((group, i) => ({
      ...(chunk[i]?.known.targetId ? { targetId: chunk[i].known.targetId } : {}),
      externalId: platformExternalId(group),
      name: group.displayName.toLowerCase(),
    }));
    const [targets, candidates, held] = await Promise.all([
      memberTargetsOf(ctx, groups),
      run.listing.candidates('group', lookups),
      heldElsewhere(deps.redis, deps.keys, 'group', run.scope, groups.map(indexed)),
    ]);
    return { ids, read, chunk, groups, lookups, targets, candidates, held };
  };
  await prefetching(sourceOrder(ctx, 'group'), fetch, async (fetched) => {
    await run.cancel.check();
    const { ids, read, chunk, groups, lookups, targets, candidates, held } = fetched;
    ctx.storedInSource.group += read.filter((c) => storedForRun(ctx, c)).length;
    ctx.claimedUnmanaged.group += candidates.claimedUnmanaged;
    const sink = decisionSink(ctx, recent);
    for (const [i, group] of groups.entries()) {
      const item = chunk[i] as Desired;
      const listed = await sink.claims.usable(candidates.lists[i], () =>
        run.listing.more('group', lookups[i]!),
      );
      // Members left out as the reconciler leaves them out; members still to be created (or
      // another input's users without an account yet) cannot match anything yet.
      const memberIds = group.members.flatMap((m) => {
        const target = targets.get(m);
        return target === undefined ? [] : [target === '' ? `pending:${m}` : target];
      });
      const decision = planIdentity<ObservedGroup>(sink, {
        kind: 'group',
        item,
        name: group.displayName,
        listed,
        held: held[i],
        decide: (found) => planGroup(group, memberIds, item.known, found),
      });
      if (decision?.removedMembers?.length) sink.writer.removal('group', group.id);
    }
    ctx.claimedUnmanaged.group += await run.listing.claim('group', sink.claims.toWrite());
    recent.push(sink.claims.mine());
    await sink.writer.flush();
    await ctx.onChunk?.(ids.length);
  });
}

/** What the store's ownership rules look an identity up by: its name and its own externalId. */
function indexed(identity: DesiredUser | Omit<DesiredGroup, 'members'>) {
  const name = 'userName' in identity ? identity.userName : identity.displayName;
  return { id: identity.id, name: name.toLowerCase(), externalId: identity.externalId };
}

function decisionSink(ctx: MergeContext, recent: RecentClaims): DecisionSink {
  return {
    scope: ctx.run.scope,
    tally: ctx.tally,
    link: ctx.link,
    writer: new PlanWriter(ctx.deps.redis, ctx.run.staging),
    claims: new Claims(recent.all()),
  };
}

/** A source identity stored as the run's input's (or before owners existed). */
function storedForRun(ctx: MergeContext, identity: ChunkIdentity): boolean {
  const { scope } = ctx.run;
  return identity.stored && (scope === undefined || identity.owner === undefined || identity.owner === scope);
}

/**
 * The target id of every member of the chunk's groups ('' none yet; absent: left out): the
 * source's users, and other inputs' users (SPEC §6: memberships may name users of any input).
 */
async function memberTargetsOf(
  ctx: MergeContext,
  groups: readonly (DesiredGroup | DesiredUser)[],
): Promise<Map<string, string>> {
  const members = [...new Set(groups.flatMap((g) => (g as DesiredGroup).members))];
  const targets = new Map<string, string>();
  const matched = ctx.run.staging.key('matched');
  const source = { users: ctx.source.users, scope: ctx.run.scope };
  for (let i = 0; i < members.length; i += MEMBER_BATCH) {
    const batch = members.slice(i, i + MEMBER_BATCH);
    const found = await memberTargets(ctx.deps.redis, ctx.deps.keys, source, matched, batch);
    batch.forEach((member, n) => {
      const target = found[n];
      if (target !== undefined) targets.set(member, target);
    });
  }
  return targets;
}

import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import {
  targetExternalId,
  type DesiredGroup,
  type DesiredUser,
  type IdentityKind,
} from '../domain/identity.js';
import { pickMatch, planGroup, planUser, type Candidate, type Decision } from '../domain/sync-plan.js';
import type { ObservedUser } from '../domain/user-diff.js';
import { desiredIds, memberTargets, readChunk, type ChunkIdentity } from '../store/desired-state.bulk.js';
import type { ListedResource } from '../store/sync-listing.store.js';
import type { FullSyncDeps } from './full-sync.context.js';
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
  /** Told after each chunk how many identities were planned so far. */
  onChunk?: (planned: number) => Promise<void>;
  /** Listed users claimed by a match though no managed identity's target (for unmanagedUsers). */
  claimedUnmanaged: number;
  /** Source identities with a stored desired state: all the desired ones, when it equals their count. */
  storedInSource: Record<IdentityKind, number>;
}

/** The ids of the source in its order, a chunk at a time: the staged order, or the desired identities. */
export async function* sourceOrder(ctx: MergeContext, kind: IdentityKind): AsyncGenerator<string[]> {
  const { deps, run, source } = ctx;
  if (source[kind === 'user' ? 'users' : 'groups'].mode === 'z') {
    yield* desiredIds(deps.redis, deps.keys, kind);
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
 * claimed earlier in the plan) and the decision. What later chunks need — the claims, the users
 * matched elsewhere than recorded — is written to Redis with the chunk's changes. The next chunks
 * are read while this one is decided (their candidates cannot show this chunk's claims yet: those
 * are carried over in memory).
 */
export async function planSourceUsers(ctx: MergeContext): Promise<void> {
  const { deps, run, tally } = ctx;
  const docs = run.staging.key('src:u:docs');
  const recent = new RecentClaims();
  const fetch = async (ids: string[]) => {
    const read = await readChunk(deps.redis, deps.keys, 'user', docs, ids);
    const chunk = read.filter(desired);
    const users = chunk.map((c) => parseStoredUser(c.id, c.json));
    const lookups = users.map((user, i) => ({
      ...(chunk[i]?.known.targetId ? { targetId: chunk[i].known.targetId } : {}),
      externalId: targetExternalId(user),
      name: user.userName.toLowerCase(),
    }));
    return { ids, read, chunk, users, lookups, candidates: await run.listing.candidates('user', lookups) };
  };
  await prefetching(
    sourceOrder(ctx, 'user'),
    fetch,
    async ({ ids, read, chunk, users, lookups, candidates }) => {
      await run.cancel.check();
      ctx.storedInSource.user += read.filter((c) => c.stored).length;
      ctx.claimedUnmanaged += candidates.claimedUnmanaged;
      const writer = new PlanWriter(deps.redis, run.staging);
      const claims = new Claims(recent.all());
      for (const [i, user] of users.entries()) {
        const item = chunk[i] as Desired;
        const listed = await claims.usable(candidates.lists[i], () => run.listing.more('user', lookups[i]!));
        const found = pickMatch(asCandidates<ObservedUser>(listed), claims.taken);
        const decision = planUser(user, item.known, found);
        record(writer, tally, 'user', item, decision, user.userName);
        if (found?.id !== item.known.targetId) writer.matched(user.id, found?.id ?? '');
      }
      ctx.claimedUnmanaged += await run.listing.claim('user', claims.toWrite());
      recent.push(claims.mine());
      await writer.flush();
      await ctx.onChunk?.(ids.length);
    },
  );
}

/** The claims of the chunks decided while the current one was being read (READ_AHEAD of them). */
class RecentClaims {
  private readonly chunks: Set<string>[] = [];

  push(claims: Set<string>): void {
    this.chunks.push(claims);
    if (this.chunks.length > READ_AHEAD) this.chunks.shift();
  }

  all(): Set<string> {
    return new Set(this.chunks.flatMap((claims) => [...claims]));
  }
}

/**
 * The resources matched so far that Redis may not show as claimed yet: this chunk's, and those of
 * the chunks decided after this one was read (their claims were written after).
 */
class Claims {
  readonly taken: Set<string>;
  private readonly preclaimed = new Set<string>();

  constructor(private readonly previous: ReadonlySet<string>) {
    this.taken = new Set(previous);
  }

  /**
   * The candidates to match from: a match the look-up claimed stands unless this process took
   * that resource already (then the look-up's other candidates are read).
   */
  async usable(
    listed: (ListedResource | undefined)[] | undefined,
    more: () => Promise<(ListedResource | undefined)[]>,
  ): Promise<(ListedResource | undefined)[]> {
    const first = listed?.[0];
    if (!first?.preclaimed) return listed ?? [];
    if (this.taken.has(first.resource.id)) return more();
    this.preclaimed.add(first.resource.id);
    return [first];
  }

  /** Claims Redis does not hold yet. */
  toWrite(): string[] {
    return [...this.taken].filter((id) => !this.previous.has(id) && !this.preclaimed.has(id));
  }

  mine(): Set<string> {
    return new Set([...this.taken].filter((id) => !this.previous.has(id)));
  }
}

/** Plans the source's groups a chunk at a time, comparing members through the users' target ids. */
export async function planSourceGroups(ctx: MergeContext): Promise<void> {
  const { deps, run, tally } = ctx;
  const docs = run.staging.key('src:g:docs');
  const recent = new RecentClaims();
  const fetch = async (ids: string[]) => {
    const read = await readChunk(deps.redis, deps.keys, 'group', docs, ids);
    const chunk = read.filter(desired);
    const groups = chunk.map((c) => parseStoredGroup(c.id, c.json, c.members ?? []));
    const lookups = groups.map((group, i) => ({
      ...(chunk[i]?.known.targetId ? { targetId: chunk[i].known.targetId } : {}),
      externalId: targetExternalId(group),
      name: group.displayName.toLowerCase(),
    }));
    const [targets, candidates] = await Promise.all([
      memberTargetsOf(ctx, groups),
      run.listing.candidates('group', lookups),
    ]);
    return { ids, read, chunk, groups, lookups, targets, candidates };
  };
  await prefetching(sourceOrder(ctx, 'group'), fetch, async (fetched) => {
    await run.cancel.check();
    const { ids, read, chunk, groups, lookups, targets, candidates } = fetched;
    ctx.storedInSource.group += read.filter((c) => c.stored).length;
    const writer = new PlanWriter(deps.redis, run.staging);
    const claims = new Claims(recent.all());
    for (const [i, group] of groups.entries()) {
      const item = chunk[i] as Desired;
      const listed = await claims.usable(candidates.lists[i], () => run.listing.more('group', lookups[i]!));
      const found = pickMatch(asCandidates<ObservedGroup>(listed), claims.taken);
      // Members not desired as users are left out (as the reconciler does); members still to be
      // created cannot match anything yet.
      const memberIds = group.members.flatMap((m) => {
        const target = targets.get(m);
        return target === undefined ? [] : [target === '' ? `pending:${m}` : target];
      });
      const decision = planGroup(group, memberIds, item.known, found);
      record(writer, tally, 'group', item, decision, group.displayName);
      if (decision.removedMembers?.length) writer.removal('group', group.id);
    }
    await run.listing.claim('group', claims.toWrite());
    recent.push(claims.mine());
    await writer.flush();
    await ctx.onChunk?.(ids.length);
  });
}

/** Chunks read ahead of the one being decided. */
const READ_AHEAD = 2;

/**
 * Handles chunks in order, reading the next ones while the current one is handled: Redis works on
 * the reads while the process decides, instead of each waiting for the other.
 */
async function prefetching<F>(
  chunks: AsyncIterable<string[]>,
  fetch: (ids: string[]) => Promise<F>,
  handle: (fetched: F) => Promise<void>,
): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  let reading: Promise<unknown> = Promise.resolve();
  const start = () => {
    // The ids of each chunk are taken in order; their reads then overlap.
    const next = reading.then(() => iterator.next());
    reading = next;
    const fetched = next.then((n) => (n.done === true ? undefined : fetch(n.value)));
    // Not awaited until its turn: a failure then is the one thrown (handle's own first).
    fetched.catch(() => undefined);
    return fetched;
  };
  const ahead = Array.from({ length: READ_AHEAD }, start);
  for (;;) {
    const current = await ahead.shift();
    if (current === undefined) return;
    ahead.push(start());
    await handle(current);
  }
}

type Desired = ChunkIdentity & { json: string };

function desired(identity: ChunkIdentity): identity is Desired {
  return identity.json !== undefined;
}

function record(
  writer: PlanWriter,
  tally: PlanTally,
  kind: IdentityKind,
  item: Desired,
  decision: Decision,
  name: string,
): void {
  tally.decided(kind, decision, name);
  if (decision.change) writer.change(decision.change, item.staged);
  if (decision.adoption) writer.adoption(kind, item.id, decision.adoption.targetId);
}

function asCandidates<R>(
  listed: readonly (ListedResource | undefined)[] | undefined,
): (Candidate<R> | undefined)[] {
  return (listed ?? []) as (Candidate<R> | undefined)[];
}

/** The target id of every member of the chunk's groups ('' none yet; absent: not a source user). */
async function memberTargetsOf(
  ctx: MergeContext,
  groups: readonly (DesiredGroup | DesiredUser)[],
): Promise<Map<string, string>> {
  const members = [...new Set(groups.flatMap((g) => (g as DesiredGroup).members))];
  const targets = new Map<string, string>();
  const matched = ctx.run.staging.key('matched');
  for (let i = 0; i < members.length; i += MEMBER_BATCH) {
    const batch = members.slice(i, i + MEMBER_BATCH);
    const found = await memberTargets(ctx.deps.redis, ctx.deps.keys, ctx.source.users, matched, batch);
    batch.forEach((member, n) => {
      const target = found[n];
      if (target !== undefined) targets.set(member, target);
    });
  }
  return targets;
}

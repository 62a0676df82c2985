import { platformExternalId, type IdentityKind } from '../domain/identity.js';
import type { Decision } from '../domain/sync-plan.js';
import { cleanDigest, type CleanFound } from '../store/sync-clean.store.js';
import type { ListedResource, MatchKeys } from '../store/sync-listing.store.js';
import type { ChunkIdentity } from '../store/sync-run.store.js';
import type { FullSyncDeps } from './full-sync.context.js';
import type { LinkTally } from './link-tally.js';
import { Claims, prefetching, RecentClaims } from './plan-claims.js';
import { desired, planIdentity, type DecisionSink, type Desired } from './plan-identity.js';
import type { PlanTally } from './plan-tally.js';
import type { Observed } from './plan-identity.js';
import type { RunContext, SourceView } from './sync-read.js';

/** Identities planned per chunk: what the plan holds in memory at once, whatever the directory's size. */
export const PLAN_CHUNK = 1000;

export interface MergeContext {
  deps: FullSyncDeps;
  run: RunContext;
  source: SourceView;
  tally: PlanTally;
  /** A link-only run's lists (SPEC §6). */
  link?: LinkTally;
  /**
   * Told after each chunk how many identities it planned, and how many of them it read (the rest
   * were found clean: planned without being read).
   */
  onChunk?: (planned: number, read: number) => Promise<void>;
  /** Listed resources claimed by a match though no managed identity's target (for the unmanaged). */
  claimedUnmanaged: Record<IdentityKind, number>;
  /**
   * Source identities with a desired state stored for the run's input: all of its desired ones,
   * when it equals their count.
   */
  storedInSource: Record<IdentityKind, number>;
}

/** What the skeleton needs of an identity: its source id and its own externalId. */
type Identity = { id: string; externalId?: string | undefined };

/** One planned identity as its kind's rules see it: its desired state and the chunk's extra reads. */
export interface KindItem<I, X> {
  identity: I;
  item: Desired;
  extra: X;
}

/**
 * What differs between planning users and planning groups (plan-kinds.ts); the skeleton is
 * planSource. `X` is what a chunk reads besides the listing (groups: their members' target ids).
 */
export interface PlanKindRules<I extends Identity, X, R extends Observed> {
  kind: IdentityKind;
  parse(item: Desired): I;
  /** userName / displayName. */
  name(identity: I): string;
  /** The chunk's extra reads, made beside its look-ups. */
  read(ctx: MergeContext, identities: readonly I[]): Promise<X>;
  decide(entry: KindItem<I, X>, found: R | undefined): Decision;
  /** What a decision also writes for later chunks (users matched elsewhere, groups losing members). */
  decided(sink: DecisionSink, entry: KindItem<I, X>, decision: Decision): void;
}

/**
 * Plans the source's identities of one kind a chunk at a time (SPEC §6): each one's desired state
 * (staged or stored), what the bridge knows of it, its candidates in the listing, the match (the
 * first not claimed earlier in the plan) and the decision (plan-identity.ts). What later chunks
 * need — the claims, what the kind's rules write — goes to Redis with the chunk's changes. The next
 * chunks are read while this one is decided (their candidates cannot show this chunk's claims
 * yet: those are carried over in memory).
 */
export async function planSource<I extends Identity, X, R extends Observed>(
  ctx: MergeContext,
  rules: PlanKindRules<I, X, R>,
): Promise<void> {
  const { run } = ctx;
  const { kind } = rules;
  const recent = new RecentClaims();
  const fetch = (ids: string[]) => fetchChunk(ctx, rules, ids);
  await prefetching(run.store.order(kind, PLAN_CHUNK), fetch, async (fetched) => {
    await run.cancel.check();
    const { ids, clean, read, chunk, identities, lookups, extra, candidates, held } = fetched;
    counted(ctx, kind, clean, read);
    const matching: CleanFound[] = [];
    ctx.claimedUnmanaged[kind] += candidates.claimedUnmanaged;
    const sink = decisionSink(ctx, recent);
    for (const [i, identity] of identities.entries()) {
      const entry = { identity, item: chunk[i] as Desired, extra };
      const listed = await sink.claims.usable(candidates.lists[i], () =>
        run.store.listing.more(kind, lookups[i]!),
      );
      const decision = planIdentity<R>(sink, {
        kind,
        item: entry.item,
        name: rules.name(identity),
        listed,
        held: held[i],
        decide: (found) => rules.decide(entry, found),
      });
      if (decision) rules.decided(sink, entry, decision);
      const clean = marksClean(ctx) && decision && found(kind, entry.item, decision, listed);
      if (clean && entry.item.staged) sink.writer.cleanOnceWritten(kind, clean.id, clean.digest);
      else if (clean) matching.push(clean);
    }
    ctx.claimedUnmanaged[kind] += await run.store.listing.claim(kind, sink.claims.toWrite());
    recent.push(sink.claims.mine());
    await sink.writer.flush();
    if (matching.length > 0) await run.store.clean.mark(kind, matching);
    await ctx.onChunk?.(ids.length, read.length);
  });
}

/**
 * One chunk's reads: the identities the listing did not find clean, their desired state, their
 * candidates in the listing, the kind's extra reads and whether the store would refuse each.
 */
async function fetchChunk<I extends Identity, X, R extends Observed>(
  ctx: MergeContext,
  rules: PlanKindRules<I, X, R>,
  ids: string[],
) {
  const { run } = ctx;
  const { kind } = rules;
  const open = await notClean(ctx, kind, ids);
  const read = await run.store.readChunk(kind, open);
  const chunk = read.filter(desired);
  const identities = chunk.map((item) => rules.parse(item));
  const lookups = identities.map((identity, i) => matchKeys(rules, identity, chunk[i]));
  const [extra, candidates, held] = await Promise.all([
    rules.read(ctx, identities),
    run.store.listing.candidates(kind, lookups),
    run.store.heldElsewhere(
      kind,
      identities.map((identity) => indexed(rules, identity)),
    ),
  ]);
  return {
    ids,
    clean: ids.length - open.length,
    read,
    chunk,
    identities,
    lookups,
    extra,
    candidates,
    held,
  };
}

/**
 * Identities the plan need not read: users the listing found clean (sync-listing.lua.ts
 * INDEX_PAGE), groups found clean once the users are planned (CLEAN_GROUPS) — their desired state
 * and account as a sync last found them matching. Not in a link-only run, which lists every match
 * it records.
 */
async function notClean(ctx: MergeContext, kind: IdentityKind, ids: string[]): Promise<string[]> {
  if (ctx.link) return ids;
  const { store } = ctx.run;
  const clean = await (kind === 'user' ? store.cleanUsers(ids) : store.cleanGroups(ids));
  return ids.filter((_, i) => !clean[i]);
}

/** A run that writes records the users it found matching (not a dry run: it writes nothing). */
function marksClean(ctx: MergeContext): boolean {
  return ctx.run.mode.writes && !ctx.link;
}

/**
 * An identity whose desired state matches its account — its recorded one, or the one the run
 * adopts — with the digest a later sync finds it clean by (once written, when this run stages its
 * desired state).
 */
function found(
  kind: IdentityKind,
  item: Desired,
  decision: Decision,
  listed: readonly (ListedResource | undefined)[],
): CleanFound | undefined {
  const { targetId, managed } = item.known;
  const matched = decision.matched;
  if (decision.counted !== 'unchanged' || decision.change || matched === undefined) return undefined;
  const recorded = managed && targetId === matched;
  if (!recorded && decision.adoption?.targetId !== matched) return undefined;
  const account = listed.find((candidate) => candidate?.resource.id === matched);
  return account && { id: item.id, digest: cleanDigest(kind, item.json, account.packed) };
}

/** What an identity is looked up by in the listing, in matching order (SPEC §6). */
function matchKeys<I extends Identity>(
  rules: Pick<PlanKindRules<I, unknown, Observed>, 'name'>,
  identity: I,
  item: Desired | undefined,
): MatchKeys {
  return {
    ...(item?.known.targetId ? { targetId: item.known.targetId } : {}),
    externalId: platformExternalId(identity),
    name: rules.name(identity).toLowerCase(),
  };
}

/** What the store's ownership rules look an identity up by: its name and its own externalId. */
function indexed<I extends Identity>(rules: Pick<PlanKindRules<I, unknown, Observed>, 'name'>, identity: I) {
  return { id: identity.id, name: rules.name(identity).toLowerCase(), externalId: identity.externalId };
}

function decisionSink(ctx: MergeContext, recent: RecentClaims): DecisionSink {
  return {
    scope: ctx.run.scope,
    tally: ctx.tally,
    link: ctx.link,
    writer: ctx.run.store.planWriter(),
    claims: new Claims(recent.all()),
  };
}

/** A chunk's clean identities (unchanged) and its stored ones. */
function counted(ctx: MergeContext, kind: IdentityKind, clean: number, read: readonly ChunkIdentity[]): void {
  ctx.tally.foundClean(kind, clean);
  ctx.storedInSource[kind] += clean + read.filter((c) => storedForRun(ctx, c)).length;
}

/** A source identity stored as the run's input's (or before owners existed). */
function storedForRun(ctx: MergeContext, identity: ChunkIdentity): boolean {
  const { scope } = ctx.run;
  return identity.stored && (scope === undefined || identity.owner === undefined || identity.owner === scope);
}

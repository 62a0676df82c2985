import { DEFAULT_POLICY } from '../domain/identity-policy.js';
import type { FullRead } from '../domain/input.js';
import { sourceInvalid } from '../domain/snapshot.js';
import { collectGarbage } from '../ops/memory.js';
import { listPages } from '../platform/list-all.js';
import { newTrace } from '../platform/scim-http.js';
import {
  progress,
  type CancelWatch,
  type FullSyncDeps,
  type RunContext,
  type SourceView,
} from './full-sync.context.js';
import { refuseEmptySource, type ScopedOut, type SourceCount } from './sync-guards.js';
import { SourceStager } from './source-stager.js';
import { policyReader } from './policy-run.js';
import {
  digestNow,
  isStaged,
  owned,
  sourceDigest,
  stagedSource,
  storedSource,
  unchangedSource,
} from './run-source.js';

export type { RunContext, SourceView } from './full-sync.context.js';

/** What the listing found: distinct resources, and of them the targets of managed identities. */
export interface ListedCounts {
  users: number;
  managedUsers: number;
  groups: number;
  managedGroups: number;
}

export interface ReadResult {
  source: SourceView;
  listed: ListedCounts;
  /** When the listing started: runs trust what it showed unless they wrote to the identity since. */
  observedAt: number;
  /**
   * Users of the run's input the bridge manages that are still desired (the base of a
   * DEPROVISION_LIMIT share; other inputs' users are not the run's to count).
   */
  managedUsers: number;
}

const PROGRESS_EVERY_MS = 250;
/** Listing pages between full collections (see source-stager.ts). */
const GC_EVERY_PAGES = 200;

/**
 * Reads the source into the sync's staging and lists the platform into its index, at the same
 * time: one is CPU-bound, the other waits on the network. A directory source is read afresh (a
 * pushed snapshot, or an approved run, was staged before); the listing starts once the source has
 * given a user, so that a source listing none is refused before any request (SPEC §6, Guards).
 */
export async function readAndList(deps: FullSyncDeps, run: RunContext): Promise<ReadResult> {
  const managedUsers = await deps.store.managedAndDesired('user', run.scope);
  const observedAt = deps.store.clock.now();
  // A link-only run removes nothing (an empty source is harmless there); an approved one was judged.
  const refuse = (count: SourceCount, scopedOut?: ScopedOut) => {
    if (run.mode.refusesEmpty) refuseEmptySource(count, managedUsers, run.record.allowEmpty, scopedOut);
  };
  const input = run.scope === undefined ? undefined : deps.readers.get(run.scope);
  const reader = isStaged(run) || !input ? input : await policyReader(deps, run, input);
  if (isStaged(run) || !reader) {
    const source = isStaged(run) ? await stagedSource(run) : storedSource(run);
    if (!isStaged(run)) claimCleanWhenListed(run);
    refuse(source.count);
    const listed = await run.times.measure('listingTarget', listPlatform(deps, run));
    return { source, listed, observedAt, managedUsers };
  }
  const digest = await sourceDigest(deps, run, reader);
  if (digest?.unchanged) {
    run.digest = digest.value;
    const source = await unchangedSource(deps, run, reader);
    claimCleanWhenListed(run);
    refuse(source.count);
    const listed = await run.times.measure('listingTarget', listPlatform(deps, run));
    return { source, listed, observedAt, managedUsers };
  }
  let startListing = () => {};
  const gate = new Promise<void>((resolve) => (startListing = resolve));
  const read = async () => {
    try {
      const source = await readSource(deps, run, reader, { refuse, startListing });
      // A source that changed while it was read is read again next time.
      if (digest && (await digestNow(run, reader)) === digest.value) run.digest = digest.value;
      return source;
    } catch (error) {
      run.cancel.abort(error);
      throw error;
    } finally {
      startListing();
    }
  };
  const reading = run.times.measure('readingSource', read());
  const listing = gate.then(() => {
    run.cancel.signal.throwIfAborted();
    return run.times.measure('listingTarget', listPlatform(deps, run));
  });
  const [source, listed] = await bothOrNeither(run.cancel, reading, listing);
  return { source, listed, observedAt, managedUsers };
}

/**
 * A plan that walks the stored identities and stages none (no source, or one unchanged) has the
 * listing claim each clean user's account as it indexes it (SyncListing.claimCleanWhenListed); not
 * a link-only run, which plans every user.
 */
function claimCleanWhenListed(run: RunContext): void {
  if (!run.mode.links) run.store.listing.claimCleanWhenListed();
}

async function readSource(
  deps: FullSyncDeps,
  run: RunContext,
  reader: FullRead,
  gate: { refuse: (count: SourceCount, scopedOut?: ScopedOut) => void; startListing: () => void },
): Promise<SourceView> {
  const { staging } = run.store;
  await staging.drop('source');
  await recordDeltaStart(deps, run);
  let reported = 0;
  const stager = new SourceStager(staging, async (read) => {
    await run.cancel.check();
    if (Date.now() - reported < PROGRESS_EVERY_MS) return;
    reported = Date.now();
    const done = read.users + read.groups;
    await progress(deps, run.syncId, 'reading-source', done, 0);
  });
  stager.onFirstUser = gate.startListing;
  // A source that fails mid-stream: its batches settle before the run ends and deletes its work.
  const kept =
    run.scope === undefined
      ? {}
      : { groupEdges: deps.store.groupEdges(run.scope), lookup: deps.store.sourceLookup(run.scope) };
  await reader.stream(stager, { signal: run.cancel.signal, ...kept }).catch(async (error: unknown) => {
    await stager.settle();
    throw error;
  });
  const verdict = await stager.finish();
  if (!verdict.ok) throw sourceInvalid(reader.label, verdict.total, verdict.problems);
  if (stager.skipped.count > 0) await reportSkipped(deps, run, stager.skipped);
  const count = { name: reader.sourceName, users: verdict.counts.users, ...owned(run) };
  await deps.store.records.update(run.syncId, {
    source: count.name,
    sourceUsers: count.users,
    staged: '1',
    // An approved run of one held with its source unchanged that reads it now.
    ...(run.record.sourceUnchanged === true ? { sourceUnchanged: '' } : {}),
  });
  gate.refuse(count, scopedOutOf(run, reader, stager));
  gate.startListing();
  return { count };
}

/**
 * What a scope and mapping left out of a read, for the empty-source refusal to say why no user is
 * left: a preview or a changed configuration counts every user it compared; a read by the input's
 * own scope counts only those it could not map. Undefined when the source itself listed no user.
 */
function scopedOutOf(run: RunContext, reader: FullRead, stager: SourceStager): ScopedOut | undefined {
  const policy = run.record.candidate === undefined ? 'configured' : 'candidate';
  if (run.preview) {
    const { counts } = run.preview.preview;
    const listed = Object.values(counts).reduce((sum, count) => sum + count.users, 0);
    return listed === 0 ? undefined : { policy, listed, unmappable: counts.unmappable.users };
  }
  const active = reader.policy?.active;
  const scoped = active !== undefined && active.fingerprint !== DEFAULT_POLICY.fingerprint;
  return scoped || stager.skippedUsers > 0 ? { policy, unmappable: stager.skippedUsers } : undefined;
}

/** Identities the input's scope and mapping could not map: left out of the run, reported with it. */
async function reportSkipped(deps: FullSyncDeps, run: RunContext, skipped: SourceStager['skipped']) {
  await deps.store.records.update(run.syncId, { skipped });
  deps.logger.warn(
    { syncId: run.syncId, count: skipped.count, examples: skipped.sample.slice(0, 5) },
    'identities left out: the scope and mapping cannot map them',
  );
}

/**
 * Where the input's delta reads continue once this read is applied: its source's position before
 * the read begins, so that a change made while it reads is read again, never missed. A source that
 * cannot say leaves its deltas waiting for the next full read.
 */
async function recordDeltaStart(deps: FullSyncDeps, run: RunContext): Promise<void> {
  const delta = run.scope === undefined ? undefined : deps.deltas.get(run.scope);
  if (!delta) return;
  try {
    const deltaFrom = await delta.position({ signal: run.cancel.signal });
    await deps.store.records.update(run.syncId, { deltaFrom });
  } catch (error) {
    if (run.cancel.signal.aborted) throw error;
    deps.logger.warn({ syncId: run.syncId, err: String(error) }, 'the source gave no delta position');
  }
}

/** Lists users and groups page by page into the sync's index; returns what it found. */
async function listPlatform(deps: FullSyncDeps, run: RunContext): Promise<ListedCounts> {
  const settings = await deps.platform.serviceProviderConfig(run.trace);
  const pageSize = settings.maxResults ?? 1000;
  const pages = { user: [0, 1], group: [0, 1] };
  let reported = 0;
  const report = () => {
    if (Date.now() - reported < PROGRESS_EVERY_MS) return;
    reported = Date.now();
    const done = pages.user[0]! + pages.group[0]!;
    const total = pages.user[1]! + pages.group[1]!;
    void progress(deps, run.syncId, 'listing-target', done, total).catch(() => undefined);
  };
  const managed = { user: 0, group: 0 };
  let indexed = 0;
  const [users, groups] = (['user', 'group'] as const).map((kind) =>
    listPages(deps.platform, kind, {
      pageSize,
      concurrency: deps.settings.concurrency,
      trace: run.trace,
      onResources: async (resources) => {
        await run.cancel.check();
        const { addedManaged } = await run.store.listing.indexPage(kind, resources);
        managed[kind] += addedManaged;
        if (++indexed % GC_EVERY_PAGES === 0) collectGarbage();
      },
      onPage: (done, expected) => {
        pages[kind] = [done, expected];
        report();
      },
    }),
  );
  // Both lists end (no request in flight) before the sync may end, whatever stopped one of them.
  await bothOrNeither(run.cancel, users as Promise<number>, groups as Promise<number>);
  await deps.health?.succeeded();
  const [listedUsers, listedGroups] = await Promise.all([
    run.store.listing.count('user'),
    run.store.listing.count('group'),
  ]);
  return {
    users: listedUsers,
    managedUsers: managed.user,
    groups: listedGroups,
    managedGroups: managed.group,
  };
}

/** Waits for both; the first to fail stops the other (through the run's abort signal). */
async function bothOrNeither<A, B>(cancel: CancelWatch, a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const stopOnFailure = <T>(p: Promise<T>) =>
    p.catch((error: unknown) => {
      cancel.abort(error);
      throw error;
    });
  const results = await Promise.allSettled([stopOnFailure(a), stopOnFailure(b)]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw cancel.signal.aborted ? (cancel.signal.reason as unknown) : failed.reason;
  return [(results[0] as PromiseFulfilledResult<A>).value, (results[1] as PromiseFulfilledResult<B>).value];
}

export { newTrace };

import { BridgeError } from '../domain/errors.js';
import { sourceInvalid } from '../domain/snapshot.js';
import { collectGarbage } from '../ops/memory.js';
import { listPages } from '../platform/list-all.js';
import { newTrace, type RequestTrace } from '../platform/scim-http.js';
import type { SourceIds } from '../store/desired-state.bulk.js';
import { StatusQueries } from '../store/status.queries.js';
import type { SyncListing } from '../store/sync-listing.store.js';
import type { SyncStaging } from '../store/sync-staging.store.js';
import type { CancelWatch, FullSyncDeps, PhaseTimes } from './full-sync.context.js';
import { refuseEmptySource, type SourceCount } from './sync-guards.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import { SourceStager } from './source-stager.js';

/** One run of a full sync: what every phase shares. */
export interface RunContext {
  syncId: string;
  record: SyncRecord;
  /** The approved continuation of a held sync. */
  approved: boolean;
  /**
   * The input whose identities the run replaces (SPEC §6, Ownership): the directory's owner when
   * it reads a source; absent when the desired state is the source (every input's identities).
   */
  scope?: string;
  /** Records the matches as managed; writes nothing to the platform (SPEC §6). */
  linkOnly: boolean;
  staging: SyncStaging;
  listing: SyncListing;
  times: PhaseTimes;
  cancel: CancelWatch;
  trace: RequestTrace;
}

/** The source a run plans from: its name and user count, and where its ids are. */
export interface SourceView {
  count: SourceCount;
  users: SourceIds;
  groups: SourceIds;
}

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
  const status = new StatusQueries(deps.redis, deps.keys);
  const managedUsers = await status.managedAndDesired('user', { owner: run.scope });
  const observedAt = deps.records.clock.now();
  // A link-only run removes nothing: an empty source is harmless there.
  const refuse = (count: SourceCount) => {
    if (!run.approved && !run.linkOnly) refuseEmptySource(count, managedUsers, run.record.allowEmpty);
  };
  if (isStaged(run)) {
    const source = await stagedSource(run);
    refuse(source.count);
    const listed = await run.times.measure('listingTarget', listPlatform(deps, run));
    return { source, listed, observedAt, managedUsers };
  }
  if (!deps.source) {
    const listed = await run.times.measure('listingTarget', listPlatform(deps, run));
    return { source: storedSource(deps), listed, observedAt, managedUsers };
  }
  let startListing = () => {};
  const gate = new Promise<void>((resolve) => (startListing = resolve));
  const read = async () => {
    try {
      return await readDirectory(deps, run, refuse, startListing);
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

/** A pushed snapshot, or what a held sync kept of its directory: planned from its staging. */
function isStaged(run: Pick<RunContext, 'record' | 'approved'>): boolean {
  const name = run.record.source;
  return name === 'snapshot' || (run.approved && name !== undefined && name !== 'none');
}

/**
 * The input whose identities a run replaces: the configured directory's owner when it reads a
 * source (the directory, or a pushed snapshot); none when the desired state is its source.
 */
export function scopeOf(
  deps: FullSyncDeps,
  run: Pick<RunContext, 'record' | 'approved'>,
): string | undefined {
  return isStaged(run) || deps.source ? deps.desired.defaultOwner : undefined;
}

async function stagedSource(run: RunContext): Promise<SourceView> {
  const users = await run.staging.userCount();
  const recorded = run.record.sourceUsers ?? 0;
  if (run.record.staged !== true || users < recorded) {
    // Never fall back to something other than what was shown: a staging lost (Redis restarted
    // without persistence, an expiry) would read as a source that lists nobody.
    throw new BridgeError(
      'interrupted',
      `What sync ${run.syncId} kept of its source is gone from Redis; start a new sync`,
    );
  }
  return stagingView(run, { name: run.record.source ?? 'snapshot', users, ...owned(run) });
}

function owned(run: RunContext): { owner?: string } {
  return run.scope === undefined ? {} : { owner: run.scope };
}

function storedSource(deps: FullSyncDeps): SourceView {
  return {
    count: { name: 'none' },
    users: { key: deps.keys.all('user'), mode: 'z' },
    groups: { key: deps.keys.all('group'), mode: 'z' },
  };
}

function stagingView(run: RunContext, count: SourceCount): SourceView {
  return {
    count,
    users: { key: run.staging.key('src:u:ids'), mode: 'h' },
    groups: { key: run.staging.key('src:g:ids'), mode: 'h' },
  };
}

async function readDirectory(
  deps: FullSyncDeps,
  run: RunContext,
  refuse: (count: SourceCount) => void,
  startListing: () => void,
): Promise<SourceView> {
  const source = deps.source;
  if (!source) throw new Error('no directory source');
  await run.staging.drop('source');
  let reported = 0;
  const stager = new SourceStager(run.staging, async (read) => {
    await run.cancel.check();
    if (Date.now() - reported < PROGRESS_EVERY_MS) return;
    reported = Date.now();
    const done = read.users + read.groups;
    await deps.records.update(run.syncId, { progress: { phase: 'reading-source', done, total: 0 } });
  });
  stager.onFirstUser = startListing;
  // A source that fails mid-stream: its batches settle before the run ends and deletes its work.
  await source.stream(stager, { signal: run.cancel.signal }).catch(async (error: unknown) => {
    await stager.settle();
    throw error;
  });
  const verdict = await stager.finish();
  if (!verdict.ok) throw sourceInvalid(source.label, verdict.total, verdict.problems);
  const count = { name: deps.settings.sourceName, users: verdict.counts.users, ...owned(run) };
  await deps.records.update(run.syncId, { source: count.name, sourceUsers: count.users, staged: '1' });
  refuse(count);
  startListing();
  return stagingView(run, count);
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
    void deps.records
      .update(run.syncId, { progress: { phase: 'listing-target', done, total } })
      .catch(() => undefined);
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
        const { addedManaged } = await run.listing.indexPage(kind, resources);
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
    run.listing.count('user'),
    run.listing.count('group'),
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

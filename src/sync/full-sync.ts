import { isOwner, type Owner } from '../domain/desired-change.js';
import { isBridgeError } from '../domain/errors.js';
import { newTrace } from '../platform/scim-http.js';
import { asBridgeError } from '../store/redis-errors.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import { CancelWatch, PhaseTimes, progress, type FullSyncDeps, type HeldRun } from './full-sync.context.js';
import { judge, type Verdict } from './sync-guards.js';
import { planRun, type Planned } from './sync-plan-run.js';
import { readAndList, type RunContext } from './sync-read.js';
import { modeOf } from './run-mode.js';
import { planReport, summarise, summaryBase } from './sync-report.js';
import { commitSource } from './sync-commit.js';
import { runStage } from './sync-stage.js';
import { reconcileOtherGroups } from './other-groups.js';
import { recordedError } from '../domain/sync-error.js';
import { configurationChange } from './policy-run.js';

export type { FullSyncDeps, FullSyncSettings, HeldRun } from './full-sync.context.js';
export { resolveLimit } from './sync-guards.js';

/**
 * A full reconciliation (SPEC §6) in memory that does not grow with the directory: the source is
 * read as a stream into the sync's staging in Redis while the platform is listed page by page into
 * an index beside it (sync-read.ts); the plan merges the two a chunk at a time, writing its changes
 * to Redis and keeping only counts and samples (sync-plan-run.ts); the guards decide on the counts
 * (sync-guards.ts). A run that reads a source replaces only its directory's identities (its scope,
 * SPEC §6 Ownership): other inputs' are left alone and reported. Then, unless a dry run: a held run
 * applies nothing at all and keeps its staging until approved (runApprovedSync) or cancelled;
 * otherwise the staging is written to the desired state in batches and the plan applied through the
 * per-identity jobs — users, then groups. A link-only run (never held) stops once the desired state
 * and its matches are recorded: nothing is sent to the platform. Every end deletes the sync's work
 * (sync-record.lua.ts FINISH). Re-running it after a crash plans again from what is there: the runs
 * are level-triggered, so nothing is written twice.
 */
export async function runFullSync(deps: FullSyncDeps, syncId: string, approved = false): Promise<void> {
  const started = Date.now();
  const record = await deps.store.records.get(syncId);
  if (!record) throw new Error(`sync ${syncId} has no record`);
  await deps.store.records.update(syncId, {
    state: 'running',
    ...(approved ? {} : { startedAt: deps.store.records.clock.now() }),
  });
  const scope = scopeOf(record);
  const run: RunContext = {
    syncId,
    record,
    mode: modeOf(record, approved),
    ...(scope === undefined ? {} : { scope }),
    store: deps.store.forRun(syncId, scope),
    times: new PhaseTimes(),
    cancel: new CancelWatch(deps.store.records, syncId),
    trace: newTrace(),
  };
  try {
    // An attempt interrupted earlier (a worker killed) may have left its work: plan afresh.
    await run.store.staging.drop('run');
    const planned = await prepare(deps, run);
    const verdict = await decide(deps, run, planned);
    if (verdict.held && run.mode.writes) return await hold(deps, run, planned, Date.now() - started);
    if (run.mode.writes) await apply(deps, run, planned);
    const heldFor = approved ? ((await deps.store.records.held<HeldRun>(syncId))?.elapsedMs ?? 0) : 0;
    await finish(deps, run, planned, started - heldFor);
  } catch (error) {
    run.cancel.abort(error);
    await fail(deps, syncId, error, run.scope);
    if (!isBridgeError(error, 'cancelled')) throw error;
  }
}

/**
 * Continues a held sync once approved: plans again from what it kept of its source, against a
 * fresh listing of the platform, and applies the whole run — additions, changes and removals.
 */
export async function runApprovedSync(deps: FullSyncDeps, syncId: string): Promise<void> {
  await runFullSync(deps, syncId, true);
}

async function prepare(deps: FullSyncDeps, run: RunContext): Promise<Planned> {
  await progress(deps, run.syncId, 'reading-source', 0, 0);
  const read = await readAndList(deps, run);
  const { count } = read.source;
  await deps.store.records.update(run.syncId, {
    source: count.name,
    ...(count.users === undefined ? {} : { sourceUsers: count.users }),
    ...(count.owner === undefined ? {} : { owner: count.owner }),
  });
  await run.cancel.check();
  run.times.start('planning');
  return planRun(deps, run, read);
}

/**
 * The guards' verdict on the plan's counts, and the plan as the record shows it. A link-only run
 * removes nothing: it is never held.
 */
async function decide(deps: FullSyncDeps, run: RunContext, planned: Planned): Promise<Verdict> {
  const judged = await judge(deps.store.records, run.syncId, deps.settings, {
    source: planned.read.source.count,
    deprovision: planned.tally.counts.users.deprovision,
    managedUsers: planned.read.managedUsers,
    ...withConfigChange(run, planned.tally.counts.users.deprovision),
  });
  // An approved run applies what it finds now: the operator has seen the plan and released it.
  const verdict: Verdict = run.mode.mayHold ? judged : { ...judged, held: false, reasons: [] };
  const options = {
    verdict,
    source: planned.read.source.count,
    approved: run.mode.name === 'approved',
    settings: deps.settings,
    ownedElsewhere: planned.ownedElsewhere,
    link: planned.link,
  };
  await deps.store.records.update(run.syncId, {
    plan: planReport(planned.tally, options, planned.memberNames),
  });
  return verdict;
}

/**
 * Writes the source to the desired state and applies the plan through the reconcile jobs; a
 * link-only run stops after the desired state: its matches recorded, nothing sent to the platform.
 */
async function apply(deps: FullSyncDeps, run: RunContext, planned: Planned): Promise<void> {
  run.times.start('writingDesiredState');
  await progress(deps, run.syncId, 'applying', 0, run.mode.sendsToPlatform ? planned.tally.totalChanges : 0);
  // Whatever it writes, the input's source digest now stands for this run's read or for none.
  if (run.scope !== undefined) await deps.store.sourceDigests.expect(run.scope, run.syncId);
  await commitSource(deps, run);
  if (!run.mode.sendsToPlatform) return;
  const { observedAt } = planned.read;
  run.times.start('users');
  await runStage(stageDeps(deps), run.syncId, 'applying', await run.store.plannedChanges('user'), observedAt);
  await reconcileOtherGroups(deps, run, observedAt);
  await run.cancel.check();
  run.times.start('groups');
  await runStage(
    stageDeps(deps),
    run.syncId,
    'applying',
    await run.store.plannedChanges('group'),
    observedAt,
  );
}

/**
 * Holds the whole run: changes nothing — it writes the held record (and its plan wrote the clean
 * marks of users it found matching their accounts: what was compared, not a change); keeps what
 * it read of its source (its staging, without expiry) and the keys of what it would remove, so
 * that approval applies what was shown even after a worker restart. The listing and the plan go:
 * approval plans again.
 */
async function hold(deps: FullSyncDeps, run: RunContext, planned: Planned, elapsedMs: number): Promise<void> {
  await run.store.staging.drop('run', ['removals']);
  await run.store.staging.expire(0);
  const { tally } = planned;
  const removals = {
    users: tally.removedUsers.total,
    groups: tally.removedGroups.total,
    memberships: tally.memberships.groups,
  };
  const work: HeldRun = { source: planned.read.source.count, elapsedMs, removals };
  await deps.store.records.saveHeld(run.syncId, work);
  await deps.store.records.update(run.syncId, {
    state: 'awaiting-approval',
    progress: {
      phase: 'awaiting-approval',
      done: 0,
      total: removals.users + removals.groups + removals.memberships,
    },
  });
  deps.logger.warn(
    { syncId: run.syncId, deprovision: tally.counts.users.deprovision, source: work.source },
    'full sync held for approval: nothing applied',
  );
}

async function finish(deps: FullSyncDeps, run: RunContext, planned: Planned, started: number) {
  const record = await deps.store.records.get(run.syncId);
  // The input's deltas continue from where this read began (none for a dry run: nothing applied).
  if (run.mode.writes && run.scope !== undefined && record?.deltaFrom)
    await deps.store.deltas.setWatermark(run.scope, record.deltaFrom);
  if (run.mode.writes && run.scope !== undefined)
    await deps.store.freshness.readSucceeded(run.scope, { at: started, kind: 'full' });
  // The next full sync of an unchanged source plans from what this one wrote (sync-read.ts).
  if (run.mode.writes && run.scope !== undefined && run.digest !== undefined)
    await deps.store.sourceDigests.keep(run.scope, run.syncId, run.digest);
  const base = summaryBase(planned.tally, run.trace.counts, planned.link);
  const summary = summarise(record, base, Date.now() - started);
  const total = run.mode.links ? 0 : planned.tally.totalChanges;
  await deps.store.records.finish(run.syncId, 'completed', {
    summary: { ...summary, ...run.times.done() },
    progress: { phase: 'done', done: total, total },
  });
}

async function fail(deps: FullSyncDeps, syncId: string, error: unknown, owner?: Owner): Promise<void> {
  const failure = asBridgeError(error);
  // A source that could not be read (down, its credential refused) shows in its input's status too.
  if (failure.side === 'source' && owner !== undefined)
    await deps.store.freshness.readFailed(owner, failure.message, failure.code).catch(() => undefined);
  deps.logger.error(
    { syncId, code: failure.code, side: failure.side, err: failure.message },
    'full sync failed',
  );
  // A sync stopped by the platform (401/403, an outage) shows in the target's health, as a
  // reconcile run's would; the next request that succeeds sets it back.
  if (failure.side === 'platform') await deps.health?.failed(failure).catch(() => undefined);
  await deps.store.records.finish(syncId, 'failed', { error: recordedError(failure) }).catch(() => undefined);
}

/** The input whose identities a run replaces (its record's); none: the desired state is its source. */
function scopeOf(record: SyncRecord): Owner | undefined {
  return record.owner !== undefined && isOwner(record.owner) ? record.owner : undefined;
}

function withConfigChange(run: RunContext, deprovision: number) {
  const configChange = configurationChange(run, deprovision);
  return configChange ? { configChange } : {};
}

function stageDeps(deps: FullSyncDeps) {
  return { records: deps.store.records, jobs: deps.jobs };
}

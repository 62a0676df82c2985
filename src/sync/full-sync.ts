import { BridgeError, isBridgeError } from '../domain/errors.js';
import { collectGarbage } from '../ops/memory.js';
import type { DesiredChange } from '../domain/desired-change.js';
import {
  checkCancel,
  PhaseTimes,
  progress,
  type FullSyncDeps,
  type HeldRun,
  type Prepared,
} from './full-sync.context.js';
import { judge, type Verdict } from './sync-guards.js';
import { prepare } from './sync-prepare.js';
import { planReport, summarise, summaryBase } from './sync-report.js';
import { runStage } from './sync-stage.js';
import { recordedError } from './sync-error.js';

export type { FullSyncDeps, FullSyncSettings, HeldRun } from './full-sync.context.js';
export { resolveLimit } from './sync-guards.js';

/**
 * A full reconciliation (SPEC §6): read the source, list the target, plan, then (unless a dry run)
 * apply through the per-identity jobs — users, then groups. A source listing no users is refused
 * (sync-guards.ts). A run the guards hold — more deprovisioning than DEPROVISION_LIMIT, or a source
 * that shrank by more than SOURCE_SHRINK_LIMIT — applies nothing at all, neither to the desired
 * state nor to the platform, and keeps what it read until approved (runApprovedSync) or cancelled.
 * Re-running it after a crash plans again from what is there: the runs are level-triggered, so
 * nothing is written twice.
 */
export async function runFullSync(deps: FullSyncDeps, syncId: string, approved = false): Promise<void> {
  const started = Date.now();
  const times = new PhaseTimes();
  const record = await deps.records.get(syncId);
  if (!record) throw new Error(`sync ${syncId} has no record`);
  await deps.records.update(syncId, {
    state: 'running',
    ...(approved ? {} : { startedAt: deps.records.clock.now() }),
  });
  try {
    const prepared = await prepare(deps, syncId, times, { record, approved });
    collectGarbage(); // the listing and the stored state are no longer needed, only the plan
    const judged = await judge(deps.records, syncId, deps.settings, {
      source: prepared.source,
      deprovision: prepared.plan.counts.users.deprovision,
      managedUsers: prepared.managedUsers,
    });
    // An approved run applies what it finds now: the operator has seen the plan and released it.
    const verdict: Verdict = approved ? { ...judged, held: false, reasons: [] } : judged;
    const options = { verdict, source: prepared.source, approved, settings: deps.settings };
    const report = planReport(prepared.plan, options);
    await deps.records.update(syncId, { plan: report });
    if (verdict.held && !record.dryRun)
      return await hold(deps, syncId, prepared, verdict, Date.now() - started);
    if (!record.dryRun) await apply(deps, syncId, prepared, times);
    const heldFor = approved ? ((await deps.records.held<HeldRun>(syncId))?.elapsedMs ?? 0) : 0;
    await finish(deps, syncId, prepared, started - heldFor, times);
  } catch (error) {
    await fail(deps, syncId, error);
    if (!isBridgeError(error, 'cancelled')) throw error;
  }
}

/**
 * Continues a held sync once approved: plans again from the snapshot it kept, against a fresh
 * listing of the platform, and applies the whole run — additions, changes and removals.
 */
export async function runApprovedSync(deps: FullSyncDeps, syncId: string): Promise<void> {
  await runFullSync(deps, syncId, true);
}

async function apply(deps: FullSyncDeps, syncId: string, prepared: Prepared, times: PhaseTimes) {
  times.start('writingDesiredState');
  await progress(deps, syncId, 'applying', 0, prepared.plan.changes.length);
  const { upserts, deleteUsers, deleteGroups } = prepared.desired;
  // Identities the plan found already matching on the target are written without a dirty mark:
  // no reconcile job is owed for them (the sweep would otherwise read each one back).
  const pending = new Set(prepared.plan.changes.map((c) => `${c.kind}:${c.id}`));
  const clean = (change: DesiredChange): DesiredChange =>
    change.op === 'upsertUser' && !pending.has(`user:${change.user.id}`)
      ? { ...change, clean: true }
      : change.op === 'upsertGroup' && !pending.has(`group:${change.group.id}`)
        ? { ...change, clean: true }
        : change;
  await applyInBatches(deps, upserts.map(clean));
  await applyDeletions(deps, deleteUsers, deleteGroups);
  await deps.state.adoptBulk(prepared.plan.adoptions);
  times.start('users');
  const changes = prepared.plan.changes;
  await runStage(
    deps,
    syncId,
    'applying',
    changes.filter((c) => c.kind === 'user'),
    prepared.observedAt,
  );
  await checkCancel(deps, syncId);
  times.start('groups');
  await runStage(
    deps,
    syncId,
    'applying',
    changes.filter((c) => c.kind === 'group'),
    prepared.observedAt,
  );
}

/**
 * Holds the whole run: writes nothing but the held record (and, for a directory source, the
 * snapshot it read), so that approval applies what was shown even after a worker restart.
 */
async function hold(
  deps: FullSyncDeps,
  syncId: string,
  prepared: Prepared,
  verdict: Verdict,
  elapsedMs: number,
): Promise<void> {
  const removing = (kind: 'user' | 'group') =>
    prepared.plan.changes.filter((c) => c.kind === kind && c.action === 'deprovision').map((c) => c.id);
  const work: HeldRun = {
    source: prepared.source,
    elapsedMs,
    removals: {
      users: removing('user'),
      groups: removing('group'),
      memberships: prepared.plan.changes.filter((c) => c.removedMembers?.length).map((c) => c.id),
    },
  };
  const snapshot = prepared.sourceSnapshot ? JSON.stringify(prepared.sourceSnapshot) : undefined;
  await deps.records.saveHeld(syncId, work, snapshot);
  const removals =
    work.removals.users.length + work.removals.groups.length + work.removals.memberships.length;
  await deps.records.update(syncId, {
    state: 'awaiting-approval',
    progress: { phase: 'awaiting-approval', done: 0, total: removals },
  });
  const { deprovision } = prepared.plan.counts.users;
  deps.logger.warn(
    { syncId, reasons: verdict.reasons, deprovision, limit: verdict.limit, source: prepared.source },
    'full sync held for approval: nothing applied',
  );
}

async function finish(
  deps: FullSyncDeps,
  syncId: string,
  prepared: Prepared,
  started: number,
  times: PhaseTimes,
) {
  const record = await deps.records.get(syncId);
  const summary = summarise(record, summaryBase(prepared.plan, prepared.trace.counts), Date.now() - started);
  const total = prepared.plan.changes.length;
  await deps.records.finish(syncId, 'completed', {
    summary: { ...summary, ...times.done() },
    progress: { phase: 'done', done: total, total },
  });
}

async function fail(deps: FullSyncDeps, syncId: string, error: unknown): Promise<void> {
  const failure = asBridgeError(error);
  deps.logger.error(
    { syncId, code: failure.code, side: failure.side, err: failure.message },
    'full sync failed',
  );
  // A sync stopped by the platform (401/403, an outage) shows in the target's health, as a
  // reconcile run's would; the next request that succeeds sets it back.
  if (failure.side === 'platform') await deps.health?.failed(failure).catch(() => undefined);
  await deps.records.finish(syncId, 'failed', { error: recordedError(failure) }).catch(() => undefined);
}

function asBridgeError(error: unknown): BridgeError {
  if (error instanceof BridgeError) return error;
  return new BridgeError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

async function applyDeletions(deps: FullSyncDeps, users: readonly string[], groups: readonly string[]) {
  const signal = { source: 'snapshot' as const, detail: 'missing from the directory' };
  const changes: DesiredChange[] = [
    ...groups.map((id): DesiredChange => ({ op: 'deleteGroup', id, signal })),
    ...users.map((id): DesiredChange => ({ op: 'deleteUser', id, signal })),
  ];
  await applyInBatches(deps, changes);
}

async function applyInBatches(deps: FullSyncDeps, changes: readonly DesiredChange[]): Promise<void> {
  for (let i = 0; i < changes.length; i += 500)
    await deps.desired.apply(changes.slice(i, i + 500), { forSync: true });
}

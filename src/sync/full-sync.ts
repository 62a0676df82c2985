import { BridgeError, isBridgeError } from '../domain/errors.js';
import { collectGarbage } from '../ops/memory.js';
import type { DesiredChange } from '../domain/desired-change.js';
import {
  checkCancel,
  PhaseTimes,
  progress,
  type FullSyncDeps,
  type HeldWork,
  type Prepared,
} from './full-sync.context.js';
import { prepare } from './sync-prepare.js';
import { planReport, summarise, summaryBase } from './sync-report.js';
import { runStage } from './sync-stage.js';
import { recordedError } from './sync-error.js';

export type { FullSyncDeps, FullSyncSettings, HeldWork } from './full-sync.context.js';
export { resolveLimit } from './sync-prepare.js';

/**
 * A full reconciliation (SPEC §6): read the source, list the target, plan, then (unless a dry run)
 * apply through the per-identity jobs — users, then groups. A plan that deprovisions more users than
 * DEPROVISION_LIMIT applies its creates and updates and holds the rest (including the deletions
 * from the desired state) for approval. Re-running it after a crash plans again from what is
 * there: the runs are level-triggered, so nothing is written twice.
 */
export async function runFullSync(deps: FullSyncDeps, syncId: string): Promise<void> {
  const started = Date.now();
  const times = new PhaseTimes();
  const record = await deps.records.get(syncId);
  if (!record) throw new Error(`sync ${syncId} has no record`);
  await deps.records.update(syncId, { state: 'running', startedAt: deps.records.clock.now() });
  try {
    const prepared = await prepare(deps, syncId, times);
    collectGarbage(); // the listing and the stored state are no longer needed, only the plan
    const held = prepared.plan.counts.users.deprovision > prepared.limit;
    const report = planReport(prepared.plan, { held, limit: prepared.limit, dryRun: record.dryRun });
    await deps.records.update(syncId, { plan: report });
    if (!record.dryRun) await apply(deps, syncId, prepared, held, times);
    if (held && !record.dryRun) return await hold(deps, syncId, prepared, Date.now() - started);
    await finish(deps, syncId, prepared, started, times);
  } catch (error) {
    await fail(deps, syncId, error);
    if (!isBridgeError(error, 'cancelled')) throw error;
  }
}

/** Continues a held sync once approved: the deletions and deprovisions it held back. */
export async function runApprovedSync(deps: FullSyncDeps, syncId: string): Promise<void> {
  const started = Date.now();
  try {
    await deps.records.update(syncId, {
      state: 'running',
      progress: { phase: 'deprovisioning', done: 0, total: 0 },
    });
    const [work] = await deps.records.held<HeldWork>(syncId);
    if (!work) throw new Error(`sync ${syncId} holds nothing to approve`);
    await applyDeletions(deps, work.deleteUsers, work.deleteGroups);
    for (const kind of ['user', 'group'] as const) {
      const changes = work.deprovision.filter((c) => c.kind === kind);
      await runStage(deps, syncId, 'deprovisioning', changes, work.observedAt);
    }
    const record = await deps.records.get(syncId);
    await deps.records.finish(syncId, 'completed', {
      summary: summarise(record, work.base, work.elapsedMs + Date.now() - started),
      progress: { phase: 'done', done: work.deprovision.length, total: work.deprovision.length },
    });
  } catch (error) {
    await fail(deps, syncId, error);
    if (!isBridgeError(error, 'cancelled')) throw error;
  }
}

async function apply(
  deps: FullSyncDeps,
  syncId: string,
  prepared: Prepared,
  held: boolean,
  times: PhaseTimes,
) {
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
  if (!held) await applyDeletions(deps, deleteUsers, deleteGroups);
  await deps.state.adoptBulk(prepared.plan.adoptions);
  const now = prepared.plan.changes.filter((c) => !held || c.action !== 'deprovision');
  times.start('users');
  await runStage(
    deps,
    syncId,
    'applying',
    now.filter((c) => c.kind === 'user'),
    prepared.observedAt,
  );
  await checkCancel(deps, syncId);
  times.start('groups');
  await runStage(
    deps,
    syncId,
    'applying',
    now.filter((c) => c.kind === 'group'),
    prepared.observedAt,
  );
}

async function hold(
  deps: FullSyncDeps,
  syncId: string,
  prepared: Prepared,
  elapsedMs: number,
): Promise<void> {
  const { deleteUsers, deleteGroups } = prepared.desired;
  const deprovision = prepared.plan.changes.filter((c) => c.action === 'deprovision');
  const base = summaryBase(prepared.plan, prepared.trace.counts);
  const work: HeldWork = {
    deleteUsers,
    deleteGroups,
    deprovision,
    observedAt: prepared.observedAt,
    base,
    elapsedMs,
  };
  await deps.records.saveHeld(syncId, [work]);
  await deps.records.update(syncId, {
    state: 'awaiting-approval',
    progress: { phase: 'awaiting-approval', done: 0, total: deprovision.length },
  });
  const { deprovision: count } = prepared.plan.counts.users;
  deps.logger.warn({ syncId, deprovision: count, limit: prepared.limit }, 'full sync held for approval');
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

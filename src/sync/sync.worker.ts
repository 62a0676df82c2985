import { Worker, type Job } from 'bullmq';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import { applyApprovedDelta } from './delta-run.js';
import { scheduledRound } from './scheduled-round.js';
import { runApprovedSync, runFullSync, type FullSyncDeps } from './full-sync.js';
import type { RedisClient } from '../store/redis-connection.js';
import { QUEUES } from '../queue/queue-names.js';
import { SCHEDULER_ID, type SyncJobData, type SyncJobName } from './sync-job.js';
import type { SyncService } from './sync.service.js';

export interface SyncWorkerSettings {
  queuePrefix: string;
  /** Cron expression; empty removes the schedule. */
  schedule: string;
  lockMs: number;
  /** Syncs one process runs at once: one per input that can be read in full, so none waits for another. */
  concurrency: number;
}

/**
 * Runs full reconciliations, several at once per process (each input has its own slot, and a long
 * read of one must not delay another's). A run whose worker died is picked up again (stalled-job
 * recovery) and plans afresh; scheduled firings create each input's sync and queue its run, or skip
 * an input whose sync still runs or waits for approval.
 */
export async function startSyncWorker(
  connection: RedisClient,
  deps: FullSyncDeps & { service: SyncService; metrics: Metrics; logger: Logger },
  settings: SyncWorkerSettings,
): Promise<Worker<SyncJobData, unknown, SyncJobName>> {
  await applySchedule(deps.service, settings.schedule, deps.logger);
  const worker = new Worker<SyncJobData, unknown, SyncJobName>(
    QUEUES.sync,
    (job) => processSyncJob(deps, job),
    {
      connection,
      prefix: settings.queuePrefix,
      concurrency: settings.concurrency,
      lockDuration: settings.lockMs,
      stalledInterval: settings.lockMs,
      maxStalledCount: 5,
    },
  );
  worker.on('error', (error) => deps.logger.warn({ err: error.message }, 'sync worker error'));
  // A run given up by BullMQ (interrupted too often) must not keep its record running for ever.
  const release = () =>
    deps.service.releaseAbandoned().then(
      (syncIds) => {
        for (const syncId of syncIds)
          deps.logger.warn({ syncId }, 'full sync abandoned after repeated interruptions');
      },
      (error: unknown) => deps.logger.warn({ err: String(error) }, 'could not release an abandoned sync'),
    );
  worker.on('failed', () => void release());
  const timer = setInterval(() => void release(), 60_000);
  timer.unref();
  worker.on('closing', () => clearInterval(timer));
  await release();
  return worker;
}

async function processSyncJob(
  deps: FullSyncDeps & { service: SyncService; metrics: Metrics; logger: Logger },
  job: Job<SyncJobData, unknown, SyncJobName>,
): Promise<void> {
  if (job.name === 'scheduled') return scheduledRound(deps);
  const syncId = job.data.syncId;
  if (!syncId) return;
  const record = await deps.store.records.get(syncId);
  if (!record || record.state === 'completed' || record.state === 'failed') return;
  const started = Date.now();
  const log = deps.logger.child({ syncId, jobId: job.id });
  log.info(
    { dryRun: record.dryRun, trigger: record.trigger },
    job.name === 'approve' ? 'approved sync continues' : 'full sync starts',
  );
  try {
    // A held delta keeps its changes beside its record; a held full sync (even one a delta read
    // started) keeps its staging.
    const delta = job.name === 'approve' ? await deps.store.deltas.held(syncId) : undefined;
    if (delta) await applyApprovedDelta(deps.store, syncId);
    else if (job.name === 'approve') await runApprovedSync({ ...deps, logger: log }, syncId);
    else await runFullSync({ ...deps, logger: log }, syncId);
  } finally {
    await observe(deps, syncId, started);
  }
}

async function observe(
  deps: { service: SyncService; metrics: Metrics; logger: Logger },
  syncId: string,
  started: number,
) {
  const record = await deps.service.get(syncId).catch(() => undefined);
  if (!record) return;
  deps.metrics.syncDuration.observe({ result: record.state }, (Date.now() - started) / 1000);
  if (record.state === 'completed' && !record.dryRun) deps.metrics.lastFullSync.set(Date.now() / 1000);
  deps.logger.info(
    { syncId, state: record.state, summary: record.summary, error: record.error },
    `full sync ${record.state}`,
  );
}

/** SYNC_SCHEDULE through BullMQ's job scheduler: upserting replaces an old pattern; empty removes it. */
async function applySchedule(service: SyncService, schedule: string, logger: Logger): Promise<void> {
  if (schedule.trim() === '') {
    await service.queue.removeJobScheduler(SCHEDULER_ID);
    return;
  }
  await service.queue.upsertJobScheduler(
    SCHEDULER_ID,
    { pattern: schedule },
    { name: 'scheduled', data: {}, opts: { removeOnComplete: 10, removeOnFail: 10 } },
  );
  logger.info({ schedule }, 'full sync schedule set');
}

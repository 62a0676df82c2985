import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import type { BridgeError } from '../domain/errors.js';
import { formatKey } from '../domain/identity.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import { reconcileGroup } from '../reconcile/group.kind.js';
import type { ReconcileDeps, ReconcileResult, ReconcileRun } from '../reconcile/reconcile-context.js';
import type { PlatformHealth } from '../reconcile/platform-health.js';
import { reconcileUser } from '../reconcile/user.kind.js';
import type { RedisClock } from '../store/redis-clock.js';
import type { RedisClient } from '../store/redis-connection.js';
import { asBridgeError } from '../store/redis-errors.js';
import type { HistoryEntry, StoredError } from '../store/reconcile-state.store.js';
import { newTrace } from '../platform/scim-http.js';
import { backoffDelay } from './backoff.js';
import { QUEUES } from './queue-names.js';
import type { ReconcileJobData } from './reconcile-job.js';

export interface ReconcileWorkerDeps extends ReconcileDeps {
  health: PlatformHealth;
  clock: RedisClock;
  metrics: Metrics;
  logger: Logger;
  /** The reconcile queue, used to pause every worker at once (rate limit, target down). */
  queue: Queue<ReconcileJobData>;
}

export interface ReconcileWorkerSettings {
  concurrency: number;
  attempts: number;
  backoffMs: number;
  lockMs: number;
  queuePrefix: string;
}

/**
 * The worker edge: runs one identity's reconcile and translates the outcome for BullMQ — success;
 * retry with back-off (spends an attempt); pause all workers without spending one (429, target
 * down, token refused); or a permanent failure recorded for /admin/failures.
 */
export function startReconcileWorker(
  connection: RedisClient,
  deps: ReconcileWorkerDeps,
  settings: ReconcileWorkerSettings,
): Worker<ReconcileJobData> {
  const worker = new Worker<ReconcileJobData>(QUEUES.reconcile, (job) => processJob(deps, settings, job), {
    connection,
    prefix: settings.queuePrefix,
    concurrency: settings.concurrency,
    lockDuration: settings.lockMs,
    stalledInterval: settings.lockMs,
    maxStalledCount: 10,
    settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, settings.backoffMs) },
  });
  worker.on('error', (error) => deps.logger.warn({ err: error.message }, 'reconcile worker error'));
  return worker;
}

async function processJob(
  deps: ReconcileWorkerDeps,
  settings: ReconcileWorkerSettings,
  job: Job<ReconcileJobData>,
): Promise<ReconcileResult> {
  const { kind, id } = job.data;
  // Before anything reads the desired state: a change from now on raises the mark above these.
  const seen = await deps.state.seenMarks(kind, id);
  const run: ReconcileRun = {
    seen,
    startedAt: deps.clock.now(),
    now: () => deps.clock.now(),
    trace: newTrace(),
    history: [],
    observation: job.data.observation,
    syncId: job.data.syncId,
  };
  try {
    const result = kind === 'user' ? await reconcileUser(deps, id, run) : await reconcileGroup(deps, id, run);
    if (run.trace.requests.length > 0) await deps.health.succeeded();
    await deps.state.recordOutcome(kind, id, outcome(run, result.action));
    deps.metrics.reconcileChanges.inc({ kind, action: result.action, result: 'ok' });
    logChange(deps.logger, job, run, result);
    return result;
  } catch (error) {
    throw await handleFailure(deps, settings, job, run, error);
  }
}

/** Decides what BullMQ does with a failed run, records it, and returns the error to throw. */
async function handleFailure(
  deps: ReconcileWorkerDeps,
  settings: ReconcileWorkerSettings,
  job: Job<ReconcileJobData>,
  run: ReconcileRun,
  thrown: unknown,
): Promise<Error> {
  const { kind, id } = job.data;
  const error = asBridgeError(thrown, { retryable: true });
  const verdict = await deps.health.failed(error);
  if (verdict.kind === 'pause') {
    await deps.queue.rateLimit(verdict.ms);
    await record(deps, kind, id, run, 'retrying', error);
    return Worker.RateLimitError();
  }
  const last = job.attemptsMade + 1 >= settings.attempts;
  if (error.retryable && !last) {
    await record(deps, kind, id, run, 'retrying', error);
    deps.metrics.reconcileChanges.inc({ kind, action: 'retry', result: 'retrying' });
    return error;
  }
  await record(deps, kind, id, run, 'failed', error);
  deps.metrics.reconcileChanges.inc({ kind, action: 'fail', result: 'failed' });
  deps.logger.warn(
    {
      identity: formatKey({ kind, id }),
      code: error.code,
      status: error.status,
      detail: error.detail,
      attempt: job.attemptsMade + 1,
    },
    `reconcile failed permanently: ${error.message}`,
  );
  return new UnrecoverableError(`${error.code}: ${error.message}`);
}

async function record(
  deps: ReconcileWorkerDeps,
  kind: ReconcileJobData['kind'],
  id: string,
  run: ReconcileRun,
  result: 'retrying' | 'failed',
  error: BridgeError,
): Promise<void> {
  const stored: StoredError = {
    code: error.code,
    message: error.message,
    at: deps.clock.now(),
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.detail === undefined ? {} : { detail: error.detail }),
  };
  run.history.push({
    at: stored.at,
    type: 'error',
    code: error.code,
    message: error.message,
    detail: error.detail,
  });
  // If Redis itself is down, the job is retried by BullMQ once it is back; nothing to record.
  await deps.state.recordOutcome(kind, id, { ...outcome(run, result), error: stored }).catch(() => undefined);
}

/** The run's history, requests included at the time each was sent (the store's clock), oldest first. */
function outcome(run: ReconcileRun, result: string) {
  const offset = run.now() - Date.now();
  const requests: HistoryEntry[] = run.trace.requests.slice(-10).map((r) => ({
    at: r.sentAt + offset,
    type: 'request',
    method: r.method,
    path: r.path,
    status: r.status,
    durationMs: r.durationMs,
  }));
  const history = [...run.history, ...requests].sort((a, b) => a.at - b.at);
  return { startedAt: run.startedAt, seen: run.seen, result, requests: run.trace.counts, history };
}

function logChange(
  logger: Logger,
  job: Job<ReconcileJobData>,
  run: ReconcileRun,
  result: ReconcileResult,
): void {
  if (result.action === 'unchanged' && run.trace.requests.length === 0) return;
  const last = run.trace.requests.at(-1);
  logger.info(
    {
      jobId: job.id,
      identity: formatKey(job.data),
      action: result.action,
      targetId: result.targetId,
      targetStatus: last?.status,
      requests: run.trace.counts,
      durationMs: Math.round(run.now() - run.startedAt),
      attempt: job.attemptsMade + 1,
      ...(result.changed ? { changed: result.changed } : {}),
    },
    `${formatKey(job.data)} ${result.action}`,
  );
}

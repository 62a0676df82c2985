import type { Worker } from 'bullmq';
import type { Inputs } from '../domain/input.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import { startDirtyFeeder } from '../queue/dirty-feeder.js';
import { startOktaEventWorker } from '../queue/okta-events.worker.js';
import { oktaEventProcessor } from '../sources/okta/okta-event.processor.js';
import { startReconcileWorker } from '../queue/reconcile.worker.js';
import { startSyncWorker } from '../sync/sync.worker.js';
import { runDelta } from '../sync/delta-run.js';
import { startInputReads } from '../queue/input-reads.worker.js';
import type { Owner } from '../domain/desired-change.js';
import { DEFAULT_POLICY } from '../domain/identity-policy.js';
import type { ReconcileJobData } from '../queue/reconcile-job.js';
import { PlatformHealth } from '../reconcile/platform-health.js';
import { createRequestGate } from '../platform/request-gate.js';
import { RequestGateStore } from '../store/request-gate.store.js';
import { ScimHttp } from '../platform/scim-http.js';
import { oktaApiFromConfig } from '../sources/okta/okta.input.js';
import { oktaSettingsOf } from '../sources/okta/okta.settings.js';
import { applyPushedChanges } from '../sync/pushed-changes.js';
import { PlatformClient } from '../platform/platform.client.js';
import { DirtyWake } from '../store/dirty-wake.store.js';
import { inputPulls } from './input-pulls.js';
import { createStoreSide, type StoreSide } from './store-side.js';

export interface WorkerSide {
  store: StoreSide;
  platform: PlatformClient;
  reconcileWorker: Worker<ReconcileJobData>;
  syncWorker: Worker;
  close(): Promise<void>;
}

export function createPlatformClient(
  config: Config,
  store: StoreSide,
  metrics: Metrics,
  logger: Logger,
  token: () => string = () => config.target.token,
): PlatformClient {
  const http = new ScimHttp({
    baseUrl: config.target.url,
    token,
    concurrency: config.target.concurrency,
    timeoutMs: config.target.timeoutSeconds * 1000,
    gate: createRequestGate(new RequestGateStore(store.redis, store.keys), config.target.maxRps),
    metrics,
    logger,
  });
  return new PlatformClient(http);
}

/** What every worker of a process shares: its store connection, the platform client, the health. */
interface WorkerContext {
  config: Config;
  store: StoreSide;
  platform: PlatformClient;
  health: PlatformHealth;
  metrics: Metrics;
  logger: Logger;
}

/** The reconcile workers, the full-sync worker and scheduler, and the dirty sweep, on worker connections. */
export async function startWorkerSide(
  config: Config,
  metrics: Metrics,
  logger: Logger,
  options: {
    inputs: Inputs;
    targetToken?: () => string;
    /** A secret of an input's settings as it is now (live-secrets.ts). */
    secret?: (section: object, key: string) => () => string;
  },
): Promise<WorkerSide> {
  const store = await createStoreSide(config, 'worker', logger, options.inputs);
  const platform = createPlatformClient(config, store, metrics, logger, options.targetToken);
  const health = new PlatformHealth(store.health, metrics, logger, () => store.clock.now());
  const context: WorkerContext = { config, store, platform, health, metrics, logger };
  const reconcileWorker = startReconcileWorkers(context);
  const syncWorker = await startSyncWorkers(context, options.inputs);
  const { worker: oktaWorker, okta } = startOktaHooks(context, options.inputs, options.secret);
  const wake = new DirtyWake(store.redis, store.keys);
  const feeder = startDirtyFeeder(
    store.state,
    (keys) => store.producer.enqueue(keys),
    logger,
    undefined,
    wake,
  );
  const reads = await startReads(context, options.inputs);
  return {
    store,
    platform,
    reconcileWorker,
    syncWorker: syncWorker as unknown as Worker,
    close: async () => {
      feeder.stop();
      await reads.close();
      await oktaWorker.close();
      await okta?.close();
      await syncWorker.close();
      await reconcileWorker.close();
      await platform.http.close();
      await store.close();
    },
  };
}

/**
 * The worker of Okta's hook deliveries: each event's changes applied as the okta input's, under
 * okta's scope and mapping (sync/pushed-changes.ts), with Okta's API for the current state when set.
 */
function startOktaHooks(
  { config, store, metrics, logger }: WorkerContext,
  inputs: Inputs,
  secret?: (section: object, key: string) => () => string,
) {
  // OKTA_API_TOKEN as it is now: a token rotated in its file reaches the hooks' look-ups too.
  const apiToken = secret?.(oktaSettingsOf(config), 'apiToken');
  const okta = oktaApiFromConfig(config, { metrics, ...(apiToken ? { apiToken } : {}) });
  const policy = inputs.get('okta')?.policy ?? DEFAULT_POLICY;
  const process = oktaEventProcessor({
    apply: (changes) => applyPushedChanges(store.api, 'okta', policy, changes),
    readUser: (id) => store.desired.getUser(id),
    readsMembership: policy.users.readsMembership,
    ...(okta ? { okta } : {}),
    logger,
  });
  const worker = startOktaEventWorker(
    store.redis,
    { process, logger },
    { queuePrefix: store.keys.queuePrefix() },
  );
  return { worker, okta };
}

function startReconcileWorkers({ config, store, platform, health, metrics, logger }: WorkerContext) {
  return startReconcileWorker(
    store.redis,
    {
      state: store.state,
      platform,
      deprovision: config.reconcile.deprovision,
      enqueue: (keys) => store.producer.enqueue(keys),
      logger,
      health,
      clock: store.clock,
      metrics,
      queue: store.producer.queue,
    },
    {
      concurrency: config.reconcile.workerConcurrency,
      attempts: config.reconcile.attempts,
      backoffMs: config.reconcile.backoffMs,
      lockMs: config.reconcile.lockSeconds * 1000,
      queuePrefix: store.keys.queuePrefix(),
    },
  );
}

function startSyncWorkers(
  { config, store, platform, health, metrics, logger }: WorkerContext,
  inputs: Inputs,
) {
  return startSyncWorker(
    store.redis,
    {
      store: store.sync,
      platform,
      jobs: store.producer,
      readers: inputs.readable(),
      deltas: inputs.deltas(),
      settings: {
        deprovision: config.reconcile.deprovision,
        deprovisionLimit: config.reconcile.deprovisionLimit,
        sourceShrinkLimit: config.reconcile.sourceShrinkLimit,
        concurrency: config.target.concurrency,
      },
      service: store.syncs,
      metrics,
      logger,
      health,
    },
    {
      queuePrefix: store.keys.queuePrefix(),
      schedule: config.reconcile.syncSchedule,
      lockMs: config.reconcile.lockSeconds * 2000,
      concurrency: Math.max(1, inputs.readable().size),
    },
  );
}

/**
 * The recurring pulls of the inputs: each input's change read at its own cadence — a directory's
 * deltas (deltaSeconds), Okta's System Log (OKTA_LOG_POLL_SECONDS) — through one runner (sync/delta-run.ts).
 */
async function startReads({ config, store, metrics, logger }: WorkerContext, inputs: Inputs) {
  const deltas = new Map(
    [...inputs.deltas()].flatMap(([owner, read]) => {
      const full = inputs.get(owner)?.full;
      const policy = full?.policy?.active ?? DEFAULT_POLICY;
      return full ? [[owner, { read, sourceName: full.sourceName, policy }] as const] : [];
    }),
  );
  const deps = {
    store: store.sync,
    service: store.syncs,
    deltas,
    settings: {
      deprovisionLimit: config.reconcile.deprovisionLimit,
      sourceShrinkLimit: config.reconcile.sourceShrinkLimit,
    },
    logger,
    missedPushes: async (owner: string, count: number) => {
      if (owner === 'okta') metrics.oktaMissedEvents.inc(count);
      await store.sync.freshness.missed(owner, count);
    },
  };
  const schedules = inputPulls(inputs).map((pull) => ({
    name: 'delta' as const,
    owner: pull.owner,
    everyMs: pull.everySeconds * 1000,
  }));
  const read = { delta: (owner: string) => runDelta(deps, owner as Owner) };
  const reads = await startInputReads(
    store.redis,
    { read, logger },
    { queuePrefix: store.keys.queuePrefix(), schedules },
  );
  return { close: () => reads.close() };
}

import { BridgeError } from '../domain/errors.js';
import type { DeprovisionLimit } from '../config/schema.js';
import type { Snapshot } from '../domain/identity.js';
import type { PlannedChange, SyncPlan } from '../domain/sync-plan.js';
import type { Logger } from '../ops/logger.js';
import type { TargetHealth } from '../reconcile/target-health.js';
import type { DesiredChange } from '../domain/desired-change.js';
import type { DesiredStateStore } from '../store/desired-state.store.js';
import type { Keys } from '../store/keys.js';
import type { RedisClient } from '../store/redis-connection.js';
import type { ReconcileStateStore } from '../store/reconcile-state.store.js';
import type { SyncPhase, SyncRecordStore } from './sync-record.store.js';
import type { RequestTrace } from '../platform/scim-http.js';
import type { PlatformClient } from '../platform/platform.client.js';
import type { ReconcileJobs } from './sync-stage.js';
import type { SummaryBase } from './sync-report.js';

export interface FullSyncSettings {
  deprovision: 'deactivate' | 'delete';
  deprovisionLimit: DeprovisionLimit;
  /** Listing pages requested at once. */
  concurrency: number;
}

export interface FullSyncDeps {
  records: SyncRecordStore;
  desired: DesiredStateStore;
  state: ReconcileStateStore;
  redis: RedisClient;
  keys: Keys;
  target: PlatformClient;
  jobs: ReconcileJobs;
  /** The configured directory source, if any: returns a validated snapshot. */
  readSource?: () => Promise<Snapshot>;
  settings: FullSyncSettings;
  logger: Logger;
  /** Told what the sync's own requests found (its listing), as reconcile runs tell it theirs. */
  health?: Pick<TargetHealth, 'failed' | 'succeeded'>;
}

/** What a held sync keeps until it is approved: deletions not yet applied, deprovisions not yet sent. */
export interface HeldWork {
  deleteUsers: string[];
  deleteGroups: string[];
  deprovision: PlannedChange[];
  observedAt: number;
  base: SummaryBase;
  elapsedMs: number;
}

/** Changes to the desired state that a pushed or read snapshot brings. */
export interface DesiredChanges {
  upserts: DesiredChange[];
  deleteUsers: string[];
  deleteGroups: string[];
}

export interface Prepared {
  plan: SyncPlan;
  desired: DesiredChanges;
  /** When the listing started: runs trust what it showed unless they wrote to the identity since. */
  observedAt: number;
  trace: RequestTrace;
  /** DEPROVISION_LIMIT as a count of users. */
  limit: number;
}

/** How long each phase took (ms) and the process's memory at its end (MB), for the summary. */
export class PhaseTimes {
  private readonly times: Record<string, number> = {};
  private readonly rss: Record<string, number> = {};
  private phase: string | undefined;
  private since = Date.now();

  start(phase: string): void {
    const now = Date.now();
    if (this.phase) {
      this.times[this.phase] = (this.times[this.phase] ?? 0) + now - this.since;
      this.rss[this.phase] = Math.round(process.memoryUsage.rss() / 1048576);
    }
    this.phase = phase;
    this.since = now;
  }

  done(): { phasesMs: Record<string, number>; rssMb: Record<string, number> } {
    this.start('');
    return { phasesMs: { ...this.times }, rssMb: { ...this.rss } };
  }
}

export async function progress(
  deps: FullSyncDeps,
  syncId: string,
  phase: SyncPhase,
  done: number,
  total: number,
) {
  await deps.records.update(syncId, { progress: { phase, done, total } });
}

export async function checkCancel(deps: FullSyncDeps, syncId: string): Promise<void> {
  if (await deps.records.cancelRequested(syncId)) throw new BridgeError('cancelled');
}

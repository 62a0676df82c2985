import { BridgeError } from '../domain/errors.js';
import type { Snapshot } from '../domain/identity.js';
import type { SyncPlan } from '../domain/sync-plan.js';
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
import type { GuardSettings, SourceCount } from './sync-guards.js';

export interface FullSyncSettings extends GuardSettings {
  deprovision: 'deactivate' | 'delete';
  /** The configured DIRECTORY_SOURCE (`none`, `file`, `ldap`, `scim`): the name its syncs record. */
  sourceName: string;
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

/**
 * What a held sync keeps in Redis until it is approved (P:sync:<id>:held), beside the snapshot it
 * read. Nothing of the run is applied while it waits: approval plans again from that snapshot
 * against a fresh listing and applies the whole run.
 */
export interface HeldRun {
  source: SourceCount;
  /** How long the run took until it was held (ms), for the summary. */
  elapsedMs: number;
  /** Ids whose removal waits: users to deprovision, groups to delete, groups losing members. */
  removals: { users: string[]; groups: string[]; memberships: string[] };
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
  source: SourceCount;
  /** The snapshot read from a directory source (a held sync keeps it); absent for a pushed one. */
  sourceSnapshot?: Snapshot;
  /** Users the bridge manages that are still desired (the base of a DEPROVISION_LIMIT share). */
  managedUsers: number;
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

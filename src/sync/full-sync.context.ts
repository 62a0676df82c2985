import { BridgeError } from '../domain/errors.js';
import type { DeltaRead, FullRead } from '../domain/input.js';
import type { Logger } from '../ops/logger.js';
import type { PlatformHealth } from '../reconcile/platform-health.js';
import type { SyncPhase, SyncRecordStore } from '../store/sync-record.store.js';
import type { SyncStore } from '../store/sync.store.js';
import type { PlatformClient } from '../platform/platform.client.js';
import type { ReconcileJobs } from './sync-stage.js';
import type { GuardSettings, SourceCount } from './sync-guards.js';
import type { Owner } from '../domain/desired-change.js';
import type { RequestTrace } from '../platform/scim-http.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import type { SyncRunStore } from '../store/sync-run.store.js';
import type { RunMode } from './run-mode.js';
import type { PreviewRecorder } from './policy-preview.js';

/** One run of a full sync: what every phase shares. */
export interface RunContext {
  syncId: string;
  record: SyncRecord;
  /** What the run may do: apply, dry run, link-only, approved continuation (run-mode.ts). */
  mode: RunMode;
  /**
   * The input whose identities the run replaces (SPEC §6, Ownership): the input it reads, or the
   * directory's owner for a pushed snapshot; absent when the desired state is the source (every
   * input's identities).
   */
  scope?: Owner;
  /** The run's work in the store: its staging, its listing index, its plan. */
  store: SyncRunStore;
  times: PhaseTimes;
  cancel: CancelWatch;
  trace: RequestTrace;
  /** How the run's scope and mapping differ from those it is compared with (policy-run.ts). */
  preview?: PreviewRecorder;
  /**
   * The digest of what the run read of its source (or found unchanged): kept once the run is
   * applied, so that the next full sync of an unchanged source need not read it (store/source-digest.store.ts).
   */
  digest?: string;
}

/** The source a run plans from: its name and user count (the shrink guard's comparison). */
export interface SourceView {
  count: SourceCount;
}

export interface FullSyncSettings extends GuardSettings {
  deprovision: 'deactivate' | 'delete';
  /** Listing pages requested at once. */
  concurrency: number;
}

export interface FullSyncDeps {
  /** The store's port for syncs: records, each run's work, the desired and reconcile state. */
  store: SyncStore;
  platform: PlatformClient;
  jobs: ReconcileJobs;
  /** The inputs that can be read in full, by owner (domain/input.ts), each read as a stream. */
  readers: ReadonlyMap<string, FullRead>;
  /** The inputs also read for their changes: a full read records where their deltas continue. */
  deltas: ReadonlyMap<string, DeltaRead>;
  settings: FullSyncSettings;
  logger: Logger;
  /** Told what the sync's own requests found (its listing), as reconcile runs tell it theirs. */
  health?: Pick<PlatformHealth, 'failed' | 'succeeded'>;
}

/**
 * What a held sync keeps in Redis until it is approved (P:sync:<id>:held), beside what it kept of
 * its source (P:sync:<id>:src:…) and the keys of what it would remove (P:sync:<id>:removals).
 * Nothing of the run is applied while it waits: approval plans again from that staging against a
 * fresh listing and applies the whole run.
 */
export interface HeldRun {
  source: SourceCount;
  /** How long the run took until it was held (ms), for the summary. */
  elapsedMs: number;
  /** How many removals wait: users to deprovision, groups to delete, groups losing members. */
  removals: { users: number; groups: number; memberships: number };
}

/** How long each phase took (ms) and the process's memory at its end (MB), for the summary. */
export class PhaseTimes {
  private readonly times: Record<string, number> = {};
  private readonly rss: Record<string, number> = {};
  private phase: string | undefined;
  private since = Date.now();

  start(phase: string): void {
    const now = Date.now();
    if (this.phase) this.add(this.phase, now - this.since);
    this.phase = phase;
    this.since = now;
  }

  /** Records a phase that ran beside others (the source read and the listing overlap). */
  async measure<T>(phase: string, work: Promise<T>): Promise<T> {
    const started = Date.now();
    const result = await work;
    this.add(phase, Date.now() - started);
    return result;
  }

  done(): { phasesMs: Record<string, number>; rssMb: Record<string, number> } {
    this.start('');
    return { phasesMs: { ...this.times }, rssMb: { ...this.rss } };
  }

  private add(phase: string, ms: number): void {
    this.times[phase] = (this.times[phase] ?? 0) + ms;
    this.rss[phase] = Math.round(process.memoryUsage.rss() / 1048576);
  }
}

export async function progress(
  deps: FullSyncDeps,
  syncId: string,
  phase: SyncPhase,
  done: number,
  total: number,
) {
  await deps.store.records.update(syncId, { progress: { phase, done, total } });
}

/**
 * The operator's cancel, checked between chunks of every phase (at most every `everyMs`, one
 * Redis read), and the abort signal that stops what runs beside the phase that saw it.
 */
export class CancelWatch {
  private readonly controller = new AbortController();
  private last = 0;

  constructor(
    private readonly records: SyncRecordStore,
    private readonly syncId: string,
    private readonly everyMs = 200,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  async check(): Promise<void> {
    this.signal.throwIfAborted();
    const now = Date.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    if (await this.records.cancelRequested(this.syncId)) this.abort(new BridgeError('cancelled'));
    this.signal.throwIfAborted();
  }

  /** Stops every part of the run that watches the signal, with this error. */
  abort(error: unknown): void {
    if (!this.signal.aborted) this.controller.abort(error);
  }
}

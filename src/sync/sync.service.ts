import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { directoryOwner } from '../domain/desired-change.js';
import { BridgeError } from '../domain/errors.js';
import { recordedError } from '../domain/sync-error.js';
import { invalidSnapshot } from '../domain/snapshot.js';
import type { SnapshotSink } from '../domain/snapshot-sink.js';
import type { RedisClient } from '../store/redis-connection.js';
import { replicated } from '../store/replica-ack.js';
import type { SyncStore } from '../store/sync.store.js';
import { inputToRead, refuseOtherInput, type SyncInputs } from './sync-inputs.js';
import { SourceStager } from './source-stager.js';
import type { SyncRecord, SyncRecordStore } from '../store/sync-record.store.js';
import { approveJobId, newSyncId } from '../queue/job-ids.js';
import { QUEUES } from '../queue/queue-names.js';
import { ResilientQueue } from '../queue/resilient-queue.js';
import type { SyncJobData, SyncJobName } from './sync-job.js';

export type { SyncInputs } from './sync-inputs.js';

export interface StartRequest {
  /** The input to read in full, by its owner name; the configured directory when absent. */
  input?: string;
  dryRun: boolean;
  /** Who asked: an operator, the schedule, or a delta read that could not continue (`delta`). */
  trigger: 'admin' | 'cli' | 'demo' | 'schedule' | 'delta';
  /** The directory may really be empty: a source listing no users is not refused (SPEC §6, Guards). */
  allowEmpty?: boolean;
  /**
   * Records the matches between source and platform as managed and writes nothing to the platform
   * (SPEC §6); with `dryRun`, only reports what it would link.
   */
  linkOnly?: boolean;
  /** A preview's candidate scope and mapping (with dryRun), checked by the caller. */
  candidate?: unknown;
}

export type StartOptions = Pick<StartRequest, 'input' | 'dryRun' | 'allowEmpty' | 'linkOnly'>;

/**
 * Hands a pushed snapshot's items to the sink as the request body is read, and returns the
 * request's options (an NDJSON body carries them on its first line).
 */
export type SnapshotFeed = (sink: SnapshotSink) => Promise<StartOptions>;

/**
 * Starts, approves and cancels full reconciliations (SPEC §4, §6). Only one per input runs or waits
 * for approval at a time (its sync slot): a second request for that input without a snapshot gets
 * the running one's id; one with a snapshot gets 409 naming it. Inputs never wait for each other.
 */
export class SyncService {
  private readonly holder: ResilientQueue<Queue<SyncJobData, unknown, SyncJobName>>;

  /**
   * `inputs`: the owners of the inputs a sync can read in full, and the directory's — what a
   * pushed snapshot replaces, and what a sync that names no input reads when it can.
   */
  readonly records: SyncRecordStore;

  constructor(
    private readonly connection: RedisClient,
    queuePrefix: string,
    private readonly store: SyncStore,
    private readonly inputs: SyncInputs = { readable: [], directory: directoryOwner('directory') },
  ) {
    this.records = store.records;
    this.holder = new ResilientQueue(connection, () => {
      const queue = new Queue<SyncJobData, unknown, SyncJobName>(QUEUES.sync, {
        connection,
        prefix: queuePrefix,
        streams: { events: { maxLen: 100 } },
      });
      queue.on('error', () => undefined);
      return queue;
    });
  }

  get queue(): Queue<SyncJobData, unknown, SyncJobName> {
    return this.holder.current;
  }

  /**
   * Starts a sync of the directory source (or of the desired state); a running one's id if there
   * is one — except for a link-only request, refused with 409 naming it (it is not what was asked).
   */
  async start(request: StartRequest): Promise<{ jobId: string; started: boolean }> {
    const owner = inputToRead(this.inputs, request.input);
    const syncId = newSyncId(this.records.clock.now(), randomBytes(4).toString('hex'));
    const claim = await this.records.start(syncId, {
      // A sync that reads no input reconciles the desired state as it is: the directory's slot (its
      // pushed snapshots' input), so that it waits behind a held snapshot of it.
      ...(owner === undefined ? { slot: this.inputs.directory } : { owner }),
      dryRun: request.dryRun,
      trigger: request.trigger,
      allowEmpty: request.allowEmpty ?? false,
      linkOnly: request.linkOnly ?? false,
    });
    if (!claim.started && request.linkOnly) throw busy(claim.syncId);
    if (!claim.started && request.candidate !== undefined) throw busy(claim.syncId);
    if (!claim.started) return { jobId: claim.syncId, started: false };
    if (request.candidate !== undefined) await this.records.update(syncId, { candidate: request.candidate });
    await this.enqueueRun(syncId);
    await replicated(this.connection);
    return { jobId: syncId, started: true };
  }

  /**
   * Starts a sync of a snapshot pushed with the request (SPEC §5.4, §6), staged in Redis as it is
   * read (sync/source-stager.ts): refused with 409 naming the running sync before anything is read,
   * and again when claiming the slot; refused with 400 listing the problems when invalid. A refused
   * request leaves nothing behind: its staging is deleted and no record is created.
   */
  async startWithSnapshot(trigger: StartRequest['trigger'], feed: SnapshotFeed): Promise<{ jobId: string }> {
    const owner = this.inputs.directory;
    const running = await this.records.activeSyncId(owner);
    if (running) throw busy(running);
    const syncId = newSyncId(this.records.clock.now(), randomBytes(4).toString('hex'));
    const { staging } = this.store.forRun(syncId, owner);
    const stager = new SourceStager(staging);
    try {
      const options = await feed(stager);
      refuseOtherInput(options.input, owner);
      const verdict = await stager.finish();
      if (!verdict.ok) throw invalidSnapshot(verdict.total, verdict.problems);
      const claim = await this.records.start(syncId, {
        dryRun: options.dryRun,
        trigger,
        stagedUsers: verdict.counts.users,
        owner,
        allowEmpty: options.allowEmpty ?? false,
        linkOnly: options.linkOnly ?? false,
      });
      if (!claim.started) throw busy(claim.syncId);
    } catch (error) {
      await stager.settle();
      await staging.drop('all').catch(() => undefined);
      throw error;
    }
    await this.enqueueRun(syncId);
    await replicated(this.connection);
    return { jobId: syncId };
  }

  /** The inputs a scheduled firing reads, the directory first; none: the desired state as it is. */
  inputsToSchedule(): string[] {
    const { readable, directory } = this.inputs;
    return [...readable].sort((a, b) => Number(b === directory) - Number(a === directory));
  }

  /** Queues the run of a sync whose record exists (created here or by a scheduled job). */
  async enqueueRun(syncId: string): Promise<void> {
    try {
      const options = { jobId: syncId, attempts: 1, removeOnComplete: 100, removeOnFail: 100 };
      await this.holder.run((queue) => queue.add('run', { syncId }, options));
    } catch (error) {
      await this.records.finish(syncId, 'failed', {
        error: recordedError(new BridgeError('store_unavailable', 'could not queue the sync')),
      });
      throw error;
    }
  }

  async approve(syncId: string): Promise<SyncRecord> {
    const record = await this.require(syncId);
    if (record.state !== 'awaiting-approval') {
      throw new BridgeError('conflict', `Sync ${syncId} is ${record.state}, not awaiting approval`);
    }
    await this.records.update(syncId, { state: 'running' });
    const options = { jobId: approveJobId(syncId), attempts: 1, removeOnComplete: 100, removeOnFail: 100 };
    try {
      await this.holder.run((queue) => queue.add('approve', { syncId }, options));
    } catch (error) {
      // Not queued: the sync still awaits approval (nothing would ever run it as "running").
      await this.records.update(syncId, { state: 'awaiting-approval' }).catch(() => undefined);
      throw error;
    }
    await replicated(this.connection);
    return { ...record, state: 'running' };
  }

  /**
   * Cancels a queued, running or held sync. Writes already sent stay; a held sync has sent none,
   * and ending it drops what it kept for approval.
   */
  async cancel(syncId: string): Promise<SyncRecord> {
    const record = await this.require(syncId);
    if (record.state === 'completed' || record.state === 'failed') {
      throw new BridgeError('conflict', `Sync ${syncId} has already ended (${record.state})`);
    }
    const job = await this.holder.run(
      async (queue) => (await queue.getJob(syncId)) ?? (await queue.getJob(approveJobId(syncId))),
    );
    const jobState = job ? await job.getState() : 'unknown';
    if (jobState === 'active' || (record.state === 'running' && jobState === 'waiting')) {
      await this.records.requestCancel(syncId);
      await replicated(this.connection);
      return { ...record, cancelRequested: true };
    }
    if (job) await job.remove().catch(() => undefined);
    await this.skipHeldDelta(syncId, record);
    const error = recordedError(new BridgeError('cancelled'));
    await this.records.finish(syncId, 'failed', { error });
    await replicated(this.connection);
    return { ...record, state: 'failed', error };
  }

  /**
   * Ends each active sync whose job has failed while its record still says it runs: BullMQ gives
   * up on a job whose worker was interrupted more than `maxStalledCount` times, and nothing else
   * would end the record, which would hold its input's slot and refuse every later sync of it.
   */
  async releaseAbandoned(): Promise<string[]> {
    const released: string[] = [];
    for (const syncId of await this.records.activeSyncs()) {
      if (await this.releaseIfAbandoned(syncId)) released.push(syncId);
    }
    return released;
  }

  private async releaseIfAbandoned(syncId: string): Promise<boolean> {
    const record = await this.records.get(syncId);
    if (!record || (record.state !== 'running' && record.state !== 'queued')) return false;
    const job = await this.holder.run(
      async (queue) => (await queue.getJob(approveJobId(syncId))) ?? (await queue.getJob(syncId)),
    );
    if (!job || (await job.getState()) !== 'failed') return false;
    const error = recordedError(
      new BridgeError(
        'interrupted',
        `The sync stopped without finishing (${job.failedReason || 'its job failed'}); start it again`,
      ),
    );
    // Only if still running: a run that lost its job but not its process may have ended it since.
    return this.records.finishIf(syncId, ['queued', 'running'], 'failed', { error });
  }

  /**
   * A held delta cancelled: none of it is applied, and its input's deltas continue after it (or
   * they would hold the same changes again at once); the next full sync reads the source again and
   * is judged by its own guards.
   */
  private async skipHeldDelta(syncId: string, record: SyncRecord): Promise<void> {
    if (record.trigger !== 'delta' || record.state !== 'awaiting-approval') return;
    const held = await this.store.deltas.held(syncId);
    if (held) await this.store.deltas.setWatermark(held.owner, held.watermark);
  }

  async get(syncId: string): Promise<SyncRecord | undefined> {
    return this.records.get(syncId);
  }

  list(limit = 20): Promise<SyncRecord[]> {
    return this.records.list(limit);
  }

  private async require(syncId: string): Promise<SyncRecord> {
    const record = await this.records.get(syncId);
    if (!record) throw new BridgeError('not_found', `No sync ${syncId}`);
    return record;
  }

  async close(): Promise<void> {
    await this.holder.close();
  }
}

function busy(syncId: string): BridgeError {
  return new BridgeError(
    'conflict',
    `Full reconciliation ${syncId} is already running or held; try again when it ends`,
  );
}

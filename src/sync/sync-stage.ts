import { BridgeError } from '../domain/errors.js';
import type { IdentityKey } from '../domain/identity.js';
import type { PlannedChange } from '../domain/sync-plan.js';
import type { SyncPhase, SyncRecordStore } from '../store/sync-record.store.js';
import type { Observation } from '../reconcile/reconcile-context.js';

/** What a stage needs of the reconcile queue (the queue layer provides it). */
export interface ReconcileJobs {
  enqueue(
    keys: readonly IdentityKey[],
    extra?: (key: IdentityKey) => { observation?: Observation; syncId?: string },
  ): Promise<void>;
  /** True when no reconcile job is queued, running or delayed. */
  idle(): Promise<boolean>;
}

export interface StageDeps {
  records: SyncRecordStore;
  jobs: ReconcileJobs;
}

/** A stage's planned changes, read a chunk at a time (the plan's list in Redis). */
export interface StagePlan {
  total: number;
  read(start: number, count: number): Promise<PlannedChange[]>;
}

const POLL_MS = 100;
const CHUNK = 500;
/**
 * Changes enqueued and not yet run, at most: enough to keep every worker of every process busy,
 * and a bound on the jobs in Redis however large the plan (a first sync creating a million users).
 */
const WINDOW = 5000;
/** With no progress for this long and an idle queue, pending identities are enqueued again. */
const STALL_MS = 30_000;

/**
 * Applies planned changes through the per-identity reconcile jobs, each carrying what the listing
 * saw, and waits until a run that started after enqueueing has finished for every one of them
 * (RECORD_OUTCOME clears the sync's pending mark — from whichever worker process ran it). The plan
 * is read and enqueued a chunk at a time, keeping at most WINDOW changes pending. Progress is
 * written as it goes.
 */
export async function runStage(
  deps: StageDeps,
  syncId: string,
  phase: SyncPhase,
  plan: StagePlan,
  observedAt: number,
): Promise<void> {
  if (plan.total === 0) return;
  const watch = new PendingWatch(deps, syncId, phase, plan.total);
  let enqueued = 0;
  while (enqueued < plan.total) {
    const pending = await watch.poll(enqueued);
    if (pending > WINDOW - CHUNK) {
      await sleep(POLL_MS);
      continue;
    }
    const chunk = await plan.read(enqueued, CHUNK);
    if (chunk.length === 0) break;
    const keys: IdentityKey[] = chunk.map((c) => ({ kind: c.kind, id: c.id }));
    const observed = new Map(chunk.map((c) => [`${c.kind}:${c.id}`, c.observed]));
    await deps.records.addPending(syncId, keys);
    await deps.jobs.enqueue(keys, (key) => ({
      observation: { observedAt, resource: observed.get(`${key.kind}:${key.id}`) ?? null },
      syncId,
    }));
    enqueued += chunk.length;
  }
  for (;;) {
    if ((await watch.poll(enqueued)) === 0) return;
    await sleep(POLL_MS);
  }
}

/** Pending identities of a stage: progress, cancel, and the self-healing of a stalled queue. */
class PendingWatch {
  private last = -1;
  private lastChange = Date.now();

  constructor(
    private readonly deps: StageDeps,
    private readonly syncId: string,
    private readonly phase: SyncPhase,
    private readonly total: number,
  ) {}

  async poll(enqueued: number): Promise<number> {
    const { records } = this.deps;
    const pending = await records.pendingCount(this.syncId);
    await records.update(this.syncId, {
      progress: { phase: this.phase, done: enqueued - pending, total: this.total },
    });
    if (await records.cancelRequested(this.syncId)) throw new BridgeError('cancelled');
    if (pending !== this.last) {
      this.last = pending;
      this.lastChange = Date.now();
    } else if (pending > 0 && Date.now() - this.lastChange > STALL_MS) {
      await requeueIfIdle(this.deps, this.syncId);
      this.lastChange = Date.now();
    }
    return pending;
  }
}

/** Self-healing: if nothing is queued or running yet identities are still pending, enqueue them again. */
async function requeueIfIdle(deps: StageDeps, syncId: string): Promise<void> {
  if (!(await deps.jobs.idle())) return;
  const pending = await deps.records.pendingKeys(syncId, 10_000);
  const keys = pending
    .map((k) => {
      const colon = k.indexOf(':');
      return { kind: k.slice(0, colon) as IdentityKey['kind'], id: k.slice(colon + 1) };
    })
    .filter((k) => k.kind === 'user' || k.kind === 'group');
  await deps.records.addPending(syncId, keys);
  await deps.jobs.enqueue(keys, () => ({ syncId }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

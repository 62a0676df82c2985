import { BridgeError } from '../domain/errors.js';
import type { IdentityKey } from '../domain/identity.js';
import type { PlannedChange } from '../domain/sync-plan.js';
import type { SyncPhase, SyncRecordStore } from './sync-record.store.js';
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

const POLL_MS = 100;
const CHUNK = 500;
/** With no progress for this long and an idle queue, pending identities are enqueued again. */
const STALL_MS = 30_000;

/**
 * Applies planned changes through the per-identity reconcile jobs, each carrying what the listing
 * saw, and waits until a run that started after enqueueing has finished for every one of them
 * (RECORD_OUTCOME clears the sync's pending mark). Progress is written as it goes.
 */
export async function runStage(
  deps: StageDeps,
  syncId: string,
  phase: SyncPhase,
  changes: readonly PlannedChange[],
  observedAt: number,
): Promise<void> {
  if (changes.length === 0) return;
  // Marked and enqueued a chunk at a time, so that the workers start on the first chunk at once.
  for (let i = 0; i < changes.length; i += CHUNK) {
    const chunk = changes.slice(i, i + CHUNK);
    const keys: IdentityKey[] = chunk.map((c) => ({ kind: c.kind, id: c.id }));
    const observed = new Map(chunk.map((c) => [`${c.kind}:${c.id}`, c.observed]));
    await deps.records.addPending(syncId, keys);
    await deps.jobs.enqueue(keys, (key) => ({
      observation: { observedAt, resource: observed.get(`${key.kind}:${key.id}`) ?? null },
      syncId,
    }));
  }
  await waitForPending(deps, syncId, phase, changes.length);
}

async function waitForPending(
  deps: StageDeps,
  syncId: string,
  phase: SyncPhase,
  total: number,
): Promise<void> {
  let last = total;
  let lastChange = Date.now();
  for (;;) {
    const pending = await deps.records.pendingCount(syncId);
    await deps.records.update(syncId, { progress: { phase, done: total - pending, total } });
    if (pending === 0) return;
    if (await deps.records.cancelRequested(syncId)) throw new BridgeError('cancelled');
    if (pending !== last) {
      last = pending;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > STALL_MS) {
      await requeueIfIdle(deps, syncId);
      lastChange = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
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

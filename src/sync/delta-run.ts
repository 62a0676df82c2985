import { randomBytes } from 'node:crypto';
import type { DeprovisionLimit } from '../config/schema.js';
import type { DesiredChange, Owner } from '../domain/desired-change.js';
import { BridgeError, isBridgeError } from '../domain/errors.js';
import type { CompiledPolicy } from '../domain/identity-policy.js';
import type { DeltaChanges, DeltaRead } from '../domain/input.js';
import type { Logger } from '../ops/logger.js';
import { newSyncId } from '../queue/job-ids.js';
import type { HeldDelta } from '../store/delta.store.js';
import type { ReadCost } from '../store/input-freshness.store.js';
import { asBridgeError } from '../store/redis-errors.js';
import type { SyncStore } from '../store/sync.store.js';
import { deltaPlan, deltaSummary } from './delta-report.js';
import { resolveLimit } from './sync-guards.js';
import { mapSourceChanges, type MappedChanges } from './source-changes.js';
import type { SyncService } from './sync.service.js';

/** An input read for its changes, with the name its syncs record (`ldap`) and its scope and mapping. */
export interface DeltaInput {
  readonly read: DeltaRead;
  readonly sourceName: string;
  readonly policy: CompiledPolicy;
}

export interface DeltaDeps {
  store: SyncStore;
  service: SyncService;
  /** The inputs read for their changes, by owner. */
  deltas: ReadonlyMap<string, DeltaInput>;
  settings: { deprovisionLimit: DeprovisionLimit; sourceShrinkLimit: number };
  logger: Logger;
  /** Told how many events a change read brought before any push did (Okta hooks that were missed). */
  missedPushes?(owner: string, count: number): Promise<void>;
}

export type DeltaOutcome = 'applied' | 'unchanged' | 'busy' | 'held' | 'full-sync' | 'failed';

/** Removals by deltas are counted over this window against DEPROVISION_LIMIT. */
export const REMOVAL_WINDOW_MS = 24 * 3600 * 1000;
/** Changes written per batch. */
const BATCH = 500;
/** Failed reads in a row after which the input reports itself failing (and logs at error). */
export const FAILING_AFTER = 3;

/**
 * One delta read of an input (SPEC §5.4, Deltas): what changed since its watermark, applied as its
 * own through the same desired-state path as every input, and the watermark kept once applied.
 * Never while a full sync of the same input runs or waits for approval (it reads the same input;
 * it leaves the watermark from before its read, so nothing it missed is lost); another input's
 * syncs never delay it. A watermark the source cannot
 * trust — or none yet — starts a full sync of the input instead. Removals count over 24 hours
 * against DEPROVISION_LIMIT: a delta that would go over it is held as a sync awaiting approval,
 * nothing of it applied, and later deltas wait behind it. A failed read changes nothing and is
 * tried again at the next interval.
 */
export async function runDelta(deps: DeltaDeps, owner: Owner): Promise<DeltaOutcome> {
  const input = deps.deltas.get(owner);
  if (!input || (await deps.store.records.activeSyncId(owner))) return 'busy';
  const log = deps.logger.child({ input: owner });
  const watermark = await deps.store.deltas.watermark(owner);
  const kept = { groupEdges: deps.store.groupEdges(owner), lookup: deps.store.sourceLookup(owner) };
  try {
    if (!watermark) {
      await input.read.position(kept);
      return await fullSync(deps, owner, 'the input has no watermark yet', log);
    }
    const started = Date.now();
    const read = await input.read.changesSince(watermark, kept);
    // A full sync that started while this read ran reads the same input, newer than this read:
    // applied after it, these changes would bring older values back. It is left to that sync.
    if (await deps.store.records.activeSyncId(owner)) return 'busy';
    const mapped = mapDelta(owner, input, read, log);
    const cost = { changes: mapped.changes.length, entriesRead: read.entriesRead, durationMs: 0 };
    if (mapped.changes.length === 0)
      return await nothingChanged(deps, owner, read, { ...cost, durationMs: Date.now() - started });
    const removals = await removedUsers(deps.store, owner, mapped.changes);
    const budget = await removalBudget(deps, owner, removals);
    const delta = { ...read, ...mapped };
    if (budget && budget.within + removals > budget.limit)
      return await hold(deps, owner, input, delta, { removals, ...budget }, log);
    const first = await applyDelta(deps.store, owner, delta, removals, () => ({
      ...cost,
      durationMs: Date.now() - started,
    }));
    if (first > 0) await deps.missedPushes?.(owner, first);
    log.info({ changes: mapped.changes.length, removals, entriesRead: read.entriesRead }, 'delta applied');
    return 'applied';
  } catch (error) {
    if (isBridgeError(error, 'watermark_untrusted')) {
      await deps.store.deltas.clearWatermark(owner);
      return fullSync(deps, owner, error.message, log);
    }
    return failed(deps, owner, error, log);
  }
}

/**
 * The read's changes under the input's scope and mapping (source-changes.ts); what they leave out
 * is logged. A scope reading membership that the changes cannot follow throws `watermark_untrusted`.
 */
function mapDelta(owner: Owner, input: DeltaInput, read: DeltaChanges, log: Logger): MappedChanges {
  const signal = owner === 'okta' ? 'okta' : 'directory';
  const mapped = mapSourceChanges(input.policy, read.changes, {
    detail: 'change read',
    signal,
    membershipKnown: read.membershipStated === true,
  });
  const skipped = [...(read.skipped ?? []), ...mapped.skipped];
  if (skipped.length > 0)
    log.warn({ skipped: skipped.slice(0, 20), count: skipped.length }, 'delta left entries out');
  return mapped;
}

/** Applies a delta's changes in order, counts its removals in the window, then keeps its watermark. */
export async function applyDelta(
  store: SyncStore,
  owner: Owner,
  delta: Pick<HeldDelta, 'changes' | 'watermark' | 'newestChangeAt' | 'events'>,
  removals: number,
  cost?: () => ReadCost,
): Promise<number> {
  let first = 0;
  for (let i = 0; i < delta.changes.length; i += BATCH)
    first += await store.applyChanges(delta.changes.slice(i, i + BATCH), owner, delta.events);
  const now = store.clock.now();
  const run = { id: randomBytes(6).toString('hex'), count: removals };
  await store.deltas.removals(owner, REMOVAL_WINDOW_MS, now, run);
  await store.deltas.setWatermark(owner, delta.watermark);
  const changeAt = delta.newestChangeAt ?? now;
  await store.freshness.readSucceeded(owner, {
    at: now,
    kind: 'delta',
    changeAt,
    ...(cost ? { cost: cost() } : {}),
  });
  return first;
}

async function nothingChanged(
  deps: DeltaDeps,
  owner: Owner,
  read: DeltaChanges,
  cost: ReadCost,
): Promise<DeltaOutcome> {
  await deps.store.deltas.setWatermark(owner, read.watermark);
  await deps.store.freshness.readSucceeded(owner, { at: deps.store.clock.now(), kind: 'delta', cost });
  return 'unchanged';
}

/** Users the delta deletes that are desired identities of the input now. */
async function removedUsers(
  store: SyncStore,
  owner: Owner,
  changes: readonly DesiredChange[],
): Promise<number> {
  const ids = [...new Set(changes.flatMap((c) => (c.op === 'deleteUser' ? [c.id] : [])))];
  return (await store.ownedBy('user', owner, ids)).filter(Boolean).length;
}

/** Removals within the window and the limit they count against; none to check without removals. */
async function removalBudget(
  deps: DeltaDeps,
  owner: Owner,
  removals: number,
): Promise<{ within: number; limit: number } | undefined> {
  if (removals === 0) return undefined;
  const { store } = deps;
  const managed = await store.managedAndDesired('user', owner);
  const limit = resolveLimit(deps.settings.deprovisionLimit, managed);
  const within = await store.deltas.removals(owner, REMOVAL_WINDOW_MS, store.clock.now());
  return { within, limit };
}

/**
 * Holds the delta as a sync awaiting approval (it takes the input's slot: the input's later deltas
 * and full syncs wait behind it, other inputs' do not); its changes and watermark are kept beside
 * the record.
 */
async function hold(
  deps: DeltaDeps,
  owner: Owner,
  input: DeltaInput,
  read: Pick<HeldDelta, 'changes' | 'watermark' | 'newestChangeAt' | 'events'>,
  { removals, within, limit }: { removals: number; within: number; limit: number },
  log: Logger,
): Promise<DeltaOutcome> {
  const { store } = deps;
  const syncId = newSyncId(store.clock.now(), randomBytes(4).toString('hex'));
  const claim = await store.records.start(syncId, { dryRun: false, trigger: 'delta', owner });
  if (!claim.started) return 'busy';
  const held: HeldDelta = { owner, changes: read.changes, watermark: read.watermark, events: read.events };
  await store.deltas.keep(
    syncId,
    read.newestChangeAt === undefined ? held : { ...held, newestChangeAt: read.newestChangeAt },
  );
  const plan = await deltaPlan(store, {
    owner,
    sourceName: input.sourceName,
    changes: read.changes,
    removals,
    within,
    limit,
    setting: deps.settings.deprovisionLimit,
    shrinkLimit: deps.settings.sourceShrinkLimit,
  });
  await store.records.update(syncId, {
    state: 'awaiting-approval',
    source: input.sourceName,
    plan,
    progress: { phase: 'awaiting-approval', done: 0, total: removals },
  });
  log.warn({ syncId, removals, within, limit }, 'delta held for approval: nothing applied');
  return 'held';
}

/** Continues a held delta once approved: applies it whole, keeps its watermark, ends the record. */
export async function applyApprovedDelta(store: SyncStore, syncId: string): Promise<void> {
  const record = await store.records.get(syncId);
  const held = await store.deltas.held(syncId);
  if (!record || !held)
    throw new BridgeError('interrupted', `What sync ${syncId} kept of its delta is gone from Redis`);
  const started = Date.now();
  const removals = await removedUsers(store, held.owner as Owner, held.changes);
  await applyDelta(store, held.owner as Owner, held, removals);
  await store.records.finish(syncId, 'completed', {
    summary: deltaSummary(held.changes, removals, Date.now() - started),
    progress: { phase: 'done', done: removals, total: removals },
  });
}

async function fullSync(deps: DeltaDeps, owner: Owner, reason: string, log: Logger): Promise<DeltaOutcome> {
  const { jobId, started } = await deps.service.start({ input: owner, dryRun: false, trigger: 'delta' });
  log.warn({ syncId: jobId, reason, started }, 'delta read not possible: the input is read in full');
  return started ? 'full-sync' : 'busy';
}

async function failed(deps: DeltaDeps, owner: Owner, error: unknown, log: Logger): Promise<DeltaOutcome> {
  const failure = asBridgeError(error);
  const failures = await deps.store.freshness.readFailed(owner, failure.message, failure.code).catch(() => 0);
  const fields = { code: failure.code, side: failure.side, err: failure.message, failures };
  if (failures >= FAILING_AFTER) log.error(fields, 'delta reads keep failing: the input is failing');
  else log.warn(fields, 'delta read failed: tried again at the next interval');
  return 'failed';
}

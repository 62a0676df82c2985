import type { SnapshotKind } from '../domain/snapshot-ledger.js';
import type { ProblemPath } from '../domain/snapshot-problems.js';
import type { SnapshotSink } from '../domain/snapshot-sink.js';
import { SnapshotChecker, type ItemOrigin, type SnapshotVerdict } from '../domain/snapshot.js';
import { collectGarbage } from '../ops/memory.js';
import type { SyncStaging } from '../store/sync-staging.store.js';

const GC_EVERY = 50;

/** Told after each batch: items read so far, by kind. */
export type StagerProgress = (read: { users: number; groups: number }) => Promise<void> | void;

/**
 * Where a sync's source lands (domain/snapshot-sink.ts): each batch is checked — per item, and
 * across items through a ledger kept in Redis (store/sync-staging.store.ts) — and, while the
 * snapshot has no problem, staged: its ids in order and the desired state of the identities it
 * changes. A pushed snapshot (POST /admin/sync, JSON or NDJSON) and a directory source are staged
 * alike. Once a problem is found, items are still checked (to list the problems) but no longer
 * staged: the caller drops the staging of a snapshot it refuses.
 */
export class SourceStager implements SnapshotSink {
  private readonly checker: SnapshotChecker;
  private readonly read = { users: 0, groups: 0 };
  private readonly inFlight: Promise<void>[] = [];
  private batches = 0;
  /** Items the input's scope and mapping could not map: how many, and the first few with why. */
  readonly skipped = { count: 0, sample: [] as { kind: SnapshotKind; label: string; reason: string }[] };
  /** Of them, users. */
  skippedUsers = 0;
  /** Called once, when the first user is staged (the listing of the platform may then start). */
  onFirstUser: (() => void) | undefined;

  constructor(
    readonly staging: SyncStaging,
    private readonly onProgress?: StagerProgress,
  ) {
    this.checker = new SnapshotChecker(staging);
  }

  /**
   * Checks and stages a batch. Returns once the batch before it is done, so that one batch's Redis
   * work (the ledger, the staging) overlaps the next one's checks; Redis runs them in order.
   */
  async add(
    kind: SnapshotKind,
    items: readonly unknown[],
    origins?: readonly (ItemOrigin | undefined)[],
  ): Promise<void> {
    const work = this.addNow(kind, items, origins);
    work.catch(() => undefined);
    this.inFlight.push(work);
    if (this.inFlight.length > 1) await this.inFlight.shift();
  }

  private async addNow(
    kind: SnapshotKind,
    items: readonly unknown[],
    origins?: readonly (ItemOrigin | undefined)[],
  ): Promise<void> {
    if (kind === 'users') {
      const users = await this.checker.addUsers(items, origins);
      if (this.checker.valid) await this.staging.stage('user', users);
      if (users.length > 0 && this.read.users === 0) this.onFirstUser?.();
    } else {
      const groups = await this.checker.addGroups(items, origins);
      if (this.checker.valid) await this.staging.stage('group', groups);
    }
    this.read[kind] += items.length;
    // Each batch leaves garbage; collected every so often, the heap stays near its live size.
    if (++this.batches % GC_EVERY === 0) collectGarbage();
    await this.onProgress?.({ ...this.read });
  }

  problem(path: ProblemPath, reason: string): void {
    this.checker.addProblem(path, reason);
  }

  skip(kind: SnapshotKind, label: string, reason: string): void {
    this.skipped.count++;
    if (kind === 'users') this.skippedUsers++;
    if (this.skipped.sample.length < 100) this.skipped.sample.push({ kind, label, reason });
  }

  knownUsers(ids: readonly string[]): Promise<boolean[]> {
    return this.staging.hasUsers(ids);
  }

  remember(table: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    return this.staging.remember(table, entries);
  }

  recall(table: string, keys: readonly string[]): Promise<(string | undefined)[]> {
    return this.staging.recall(table, keys);
  }

  /**
   * Waits for the batches still being checked and staged, whatever their outcome: a caller that
   * drops the staging of a refused source does so after them, so none writes behind the drop.
   */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight.splice(0));
  }

  /** The verdict on the whole snapshot, once every item is in (members named by no user included). */
  async finish(): Promise<SnapshotVerdict> {
    await Promise.all(this.inFlight.splice(0));
    return this.checker.finish();
  }
}

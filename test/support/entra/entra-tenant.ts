import { AppRegistry } from './entra-apps.js';
import { Assignments } from './entra-assignments.js';
import type { EntraClock } from './entra-clock.js';
import { Directory } from './entra-directory.js';

/**
 * One Entra tenant: its directory, app registrations and app role assignments, and its
 * replication lag. Lists and delta "might have replication delays for users that were recently
 * created, updated, or deleted" (user-list.md; delta-query-overview.md "Processing delays"): with
 * a lag, a change made through the control API reaches what Graph serves only `replicationLagMs`
 * later on the emulation clock, in the order made.
 */
export class EntraTenant {
  readonly directory: Directory;
  readonly apps: AppRegistry;
  readonly assignments: Assignments;
  replicationLagMs = 0;
  private readonly pending: { due: number; apply: () => void; what: string }[] = [];
  private failure: Error | undefined;

  constructor(
    readonly id: string,
    readonly domain: string,
    private readonly clock: EntraClock,
  ) {
    this.directory = new Directory(clock);
    this.apps = new AppRegistry(clock);
    this.assignments = new Assignments(this.directory);
  }

  /**
   * Applies a change now, or queues it behind the lag. A queued change that turns out invalid
   * when applied is reported by the next control call (`checkFailures`).
   */
  change(what: string, apply: () => void): void {
    this.settle();
    this.checkFailures();
    if (this.replicationLagMs <= 0 && this.pending.length === 0) {
      apply();
      return;
    }
    this.pending.push({ due: this.clock.now() + this.replicationLagMs, apply, what });
  }

  /** Applies the queued changes whose time has come (called before Graph serves anything). */
  settle(): void {
    const now = this.clock.now();
    while (this.pending.length > 0 && (this.pending[0] as { due: number }).due <= now) {
      const next = this.pending.shift() as { apply: () => void; what: string };
      try {
        next.apply();
      } catch (error) {
        this.failure ??= new Error(`the lagged change '${next.what}' failed when applied`, { cause: error });
      }
    }
  }

  /** How many changes still wait for the lag. */
  pendingChanges(): number {
    return this.pending.length;
  }

  checkFailures(): void {
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }
}

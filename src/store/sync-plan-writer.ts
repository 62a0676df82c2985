import type { IdentityKind } from '../domain/identity.js';
import type { PlannedChange } from '../domain/sync-plan.js';
import type { ConflictAccount } from './conflicts.store.js';
import type { SyncWorkPart } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline } from './redis-errors.js';
import type { SyncStaging } from './sync-staging.store.js';

const letter = (kind: IdentityKind) => (kind === 'user' ? 'u' : 'g');

/** The conflict an identity is parked with once the source is written (SPEC §6, Ownership). */
export interface ParkConflict {
  kind: 'account' | 'ambiguous';
  account: ConflictAccount;
}

/**
 * What one chunk of the plan writes to Redis (keys.ts, P:sync:<id>:…), sent together when the chunk
 * is done: its changes (plan:K, with what the listing showed, for the runs' observations), the
 * staged ids they concern (planned:K), adoptions, the users matched elsewhere than recorded, the
 * removals a hold would keep from being applied, the ids the source no longer lists, and the
 * identities to park once written.
 */
export class SyncPlanWriter {
  private readonly lists = new Map<SyncWorkPart, string[]>();
  private readonly sets = new Map<SyncWorkPart, string[]>();
  private readonly matches: string[] = [];

  constructor(
    private readonly redis: RedisClient,
    private readonly staging: SyncStaging,
  ) {}

  change(change: PlannedChange, staged: boolean): void {
    const k = letter(change.kind);
    this.push(this.lists, `plan:${k}`, JSON.stringify(change));
    if (staged) this.push(this.sets, `planned:${k}`, change.id);
    if (change.action === 'deprovision') this.removal(change.kind, change.id);
  }

  /** An identity whose removal (deprovisioning, deletion, members taken out) a hold keeps back. */
  removal(kind: IdentityKind, id: string): void {
    this.push(this.sets, 'removals', `${kind}:${id}`);
  }

  adoption(kind: IdentityKind, id: string, targetId: string): void {
    this.push(this.lists, 'adopt', `${kind}\n${id}\n${targetId}`);
  }

  /**
   * An identity the plan found matching its account, whose desired state the run writes: recorded
   * clean once written (its digest: sync-clean.store.ts, cleanDigest).
   */
  cleanOnceWritten(kind: IdentityKind, id: string, digest: string): void {
    this.push(this.lists, 'clean:written', JSON.stringify([id, digest, kind]));
  }

  /** A user this plan matched to another target id than the recorded one ('' none: to be created). */
  matched(id: string, targetId: string): void {
    this.matches.push(id, targetId);
  }

  /** An identity parked once the source is written: its account is another input's, or ambiguous. */
  park(kind: IdentityKind, id: string, conflict: ParkConflict): void {
    this.push(this.lists, 'park', `${kind}\n${id}\n${JSON.stringify(conflict)}`);
  }

  gone(kind: IdentityKind, id: string): void {
    this.push(this.sets, `gone:${letter(kind)}`, id);
  }

  async flush(): Promise<void> {
    const pipeline = this.redis.pipeline();
    let commands = 0;
    for (const [part, values] of this.lists) {
      pipeline.rpush(this.staging.key(part), ...values);
      commands++;
    }
    for (const [part, values] of this.sets) {
      pipeline.sadd(this.staging.key(part), ...values);
      commands++;
    }
    if (this.matches.length > 0) {
      pipeline.hset(this.staging.key('matched'), ...this.matches);
      commands++;
    }
    this.lists.clear();
    this.sets.clear();
    this.matches.length = 0;
    if (commands === 0) return;
    await execPipeline(pipeline);
  }

  private push(into: Map<SyncWorkPart, string[]>, part: SyncWorkPart, value: string): void {
    const values = into.get(part);
    if (values) values.push(value);
    else into.set(part, [value]);
  }
}

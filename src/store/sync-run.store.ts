import type { IdentityKind } from '../domain/identity.js';
import type { PlannedChange } from '../domain/sync-plan.js';
import {
  desiredIds,
  heldElsewhere,
  memberTargets,
  notInSource,
  readChunk,
  sourceIdentities,
  type ChunkIdentity,
  type NotInSource,
  type SourceIds,
  type WalkPhase,
} from './desired-state.bulk.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { StatusQueries } from './status.queries.js';
import { SyncCleanChecks, type CleanFound } from './sync-clean.store.js';
import { SyncListing } from './sync-listing.store.js';
import { SyncPlanWriter, type ParkConflict } from './sync-plan-writer.js';
import { STAGING_TTL_MS, SyncStaging } from './sync-staging.store.js';
import { scanHash, scanSet, sliceList } from './redis-iterate.js';

export type { ChunkIdentity, NotInSource, WalkPhase } from './desired-state.bulk.js';

/** Identities handled per batch when the run walks its lists and sets. */
const BATCH = 500;
const letter = (kind: IdentityKind) => (kind === 'user' ? 'u' : 'g');

/** One staged identity as the run writes it to the desired state. */
export interface StagedItem {
  id: string;
  /** Canonical JSON (users) or JSON, newline, member ids (groups): as staged. */
  value: string;
  /** The plan has a change for it (it owes a reconcile run). */
  planned: boolean;
}

/** A planned adoption: the identity's platform account, found by the plan. */
export interface Adoption {
  kind: IdentityKind;
  id: string;
  targetId: string;
}

export interface Parking {
  kind: IdentityKind;
  id: string;
  conflict: ParkConflict;
}

/** What the removal walk needs to know to skip phases that cannot hold a missing identity. */
export interface RemovalCounts {
  desired: number;
  managed: number;
  creating: number;
  managedDesired: number;
}

/**
 * The store side of one full sync (keys.ts, P:sync:<id>:…): its staging of the source, its index of
 * the platform's listing, the plan it writes and reads back, and the reads of the desired state a
 * plan makes. A run that reads a source (`scope`: the input it replaces) plans from its staging;
 * one without a source plans from the desired state itself (every input's). Every call goes
 * through the store's error mapping (a Redis outage is `store_unavailable`).
 */
export class SyncRunStore {
  readonly staging: SyncStaging;
  readonly listing: SyncListing;
  readonly clean: SyncCleanChecks;
  private fromStored = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    readonly syncId: string,
    /** The input whose identities the run replaces; absent: the desired state is the source. */
    readonly scope: string | undefined,
    /** The owner the run writes as (its staging names other inputs' users as members). */
    owner: string,
  ) {
    this.staging = new SyncStaging(redis, keys, syncId, STAGING_TTL_MS, owner);
    this.listing = new SyncListing(redis, keys, syncId, scope);
    this.clean = new SyncCleanChecks(redis, keys, this.listing, scope);
  }

  /**
   * The run's input's source is unchanged since its last applied read (SourceDigestStore): the run
   * plans from the input's desired identities (P:K:own:<owner>) instead of a staging of its source.
   */
  planFromStored(): void {
    this.fromStored = true;
  }

  /** How many users the run's input has in the desired state (a run planned from it). */
  storedUsers(): Promise<number> {
    return storeCall(() => this.redis.zcard(this.sourceIds('user').key));
  }

  /**
   * Where the run's source ids are: its staging; or without a source the desired identities, and
   * for an unchanged source those of its input.
   */
  private sourceIds(kind: IdentityKind): SourceIds {
    if (this.scope === undefined) return { key: this.keys.all(kind), mode: 'z' };
    if (this.fromStored) return { key: this.keys.owned(kind, this.scope), mode: 'z' };
    return { key: this.staging.key(`src:${letter(kind)}:ids`), mode: 'h' };
  }

  /** The source's ids in its order, a chunk at a time. */
  async *order(kind: IdentityKind, chunk: number): AsyncGenerator<string[]> {
    const ids = this.sourceIds(kind);
    if (ids.mode === 'z') {
      yield* desiredIds(this.redis, ids.key);
      return;
    }
    yield* sliceList(this.redis, this.staging.key(`src:${letter(kind)}:order`), chunk);
  }

  /** A chunk's identities: their staged (else stored) desired state and what the bridge knows. */
  readChunk(kind: IdentityKind, ids: readonly string[]): Promise<ChunkIdentity[]> {
    const docs = this.staging.key(`src:${letter(kind)}:docs`);
    return readChunk(this.redis, this.keys, kind, docs, ids);
  }

  /** Of a chunk of users, those the listing found clean and the run stages nothing for. */
  cleanUsers(ids: readonly string[]): Promise<boolean[]> {
    return this.clean.users(ids, this.staging.key('src:u:docs'));
  }

  /**
   * Of a chunk of groups, those the plan need not read (SyncCleanChecks.groups): once the plan's
   * users are planned.
   */
  cleanGroups(ids: readonly string[]): Promise<boolean[]> {
    return this.clean.groups(ids, {
      stagedDocs: this.staging.key('src:g:docs'),
      users: this.sourceIds('user'),
      matched: this.staging.key('matched'),
    });
  }

  /**
   * Records clean the identities the plan found matching whose desired state the commit just
   * wrote (SyncPlanWriter.cleanOnceWritten).
   */
  async markWrittenClean(): Promise<void> {
    for await (const lines of sliceList(this.redis, this.staging.key('clean:written'), BATCH)) {
      const found = { user: [] as CleanFound[], group: [] as CleanFound[] };
      for (const line of lines) {
        const [id, digest, kind] = JSON.parse(line) as [string, string, IdentityKind?];
        found[kind ?? 'user'].push({ id, digest });
      }
      await Promise.all([this.clean.mark('user', found.user), this.clean.mark('group', found.group)]);
    }
  }

  /** Whether the store would refuse each identity as the run's write (desired-state.bulk.ts). */
  heldElsewhere(
    kind: IdentityKind,
    items: readonly { id: string; name: string; externalId?: string | undefined }[],
  ): Promise<(string | undefined)[]> {
    return heldElsewhere(this.redis, this.keys, kind, this.scope, items);
  }

  /** Group members' target ids ('' none yet; undefined: left out), this plan's matches included. */
  memberTargets(members: readonly string[]): Promise<(string | undefined)[]> {
    const source = { users: this.sourceIds('user'), scope: this.scope };
    const plan = { matched: this.staging.key('matched'), clean: this.listing.cleanClaims() };
    return memberTargets(this.redis, this.keys, source, plan, members);
  }

  planWriter(): SyncPlanWriter {
    return new SyncPlanWriter(this.redis, this.staging);
  }

  /** Counts that say which removal phases can hold a missing identity (sync-deprovision.ts). */
  async removalCounts(kind: IdentityKind): Promise<RemovalCounts> {
    const { redis, keys, scope } = this;
    const [desired, managed, creating, managedDesired] = await Promise.all([
      storeCall(() => redis.zcard(scope === undefined ? keys.all(kind) : keys.owned(kind, scope))),
      storeCall(() => redis.scard(keys.managed(kind))),
      storeCall(() => redis.scard(keys.creating(kind))),
      new StatusQueries(redis, keys).managedAndDesired(kind),
    ]);
    return { desired, managed, creating, managedDesired };
  }

  /** The stored identities of the run's input its source no longer lists, a batch at a time. */
  async *missingFromSource(
    kind: IdentityKind,
    phases: ReadonlySet<WalkPhase>,
  ): AsyncGenerator<{ walked: number; missing: NotInSource[] }> {
    const { redis, keys, scope } = this;
    const removals = this.staging.key('removals');
    const source = this.sourceIds(kind);
    for await (const { phase, ids } of sourceIdentities(redis, keys, kind, { phases, owner: scope })) {
      const missing = await notInSource(redis, keys, kind, source, { phase, ids, removals, scope });
      yield { walked: ids.length, missing };
    }
  }

  /** The run's planned changes of a kind, in plan order. */
  async plannedChanges(kind: IdentityKind): Promise<{
    total: number;
    read(start: number, count: number): Promise<PlannedChange[]>;
  }> {
    const key = this.staging.key(`plan:${letter(kind)}`);
    const total = await storeCall(() => this.redis.llen(key));
    const read = async (start: number, count: number) => {
      const lines = await storeCall(() => this.redis.lrange(key, start, start + count - 1));
      return lines.map((line) => JSON.parse(line) as PlannedChange);
    };
    return { total, read };
  }

  /** What the run staged of its source, a batch at a time, each with whether the plan changes it. */
  async *staged(kind: IdentityKind): AsyncGenerator<StagedItem[]> {
    const planned = this.staging.key(`planned:${letter(kind)}`);
    for await (const pairs of scanHash(this.redis, this.staging.key(`src:${letter(kind)}:docs`), BATCH)) {
      const ids = pairs.map(([id]) => id);
      const dirty = await storeCall(() => this.redis.smismember(planned, ...ids));
      yield pairs.map(([id, value], n) => ({ id, value, planned: dirty[n] === 1 }));
    }
  }

  /** Ids the source no longer lists that are still desired. */
  gone(kind: IdentityKind): AsyncGenerator<string[]> {
    return scanSet(this.redis, this.staging.key(`gone:${letter(kind)}`), BATCH);
  }

  async *adoptions(): AsyncGenerator<Adoption[]> {
    for await (const lines of sliceList(this.redis, this.staging.key('adopt'), BATCH))
      yield lines.map((line) => {
        const [kind, id, targetId] = line.split('\n') as [IdentityKind, string, string];
        return { kind, id, targetId };
      });
  }

  async *parkings(): AsyncGenerator<Parking[]> {
    for await (const lines of sliceList(this.redis, this.staging.key('park'), BATCH))
      yield lines.map((line) => {
        const [kind, id, json] = line.split('\n') as [IdentityKind, string, string];
        return { kind, id, conflict: JSON.parse(json) as ParkConflict };
      });
  }
}

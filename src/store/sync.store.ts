import type { DesiredChange, Owner } from '../domain/desired-change.js';
import type { IdentityKind } from '../domain/identity.js';
import type { DesiredStateStore } from './desired-state.store.js';
import { IdentityNameQueries } from './identity-names.queries.js';
import type { Keys } from './keys.js';
import { GroupEdgesStore } from './group-edges.store.js';
import { SourceLookupStore } from './source-lookup.store.js';
import type { ReconcileStateStore } from './reconcile-state.store.js';
import type { RedisClient } from './redis-connection.js';
import { sliceSortedSet } from './redis-iterate.js';
import { storeCall } from './redis-errors.js';
import { DeltaStore } from './delta.store.js';
import { InputFreshnessStore } from './input-freshness.store.js';
import { SourceDigestStore } from './source-digest.store.js';
import { StatusQueries } from './status.queries.js';
import type { SyncRecordStore } from './sync-record.store.js';
import { SyncRunStore, type Adoption, type Parking } from './sync-run.store.js';

const BATCH = 500;

/** An identity of another input, as a sync's report names it. */
export interface OwnedIdentity {
  kind: IdentityKind;
  id: string;
  owner: string;
  name: string | null;
}

/**
 * The store as a full sync uses it (the port of sync/): its record, the work of each run
 * (SyncRunStore), and the reads and writes of the desired state and reconcile state a run makes.
 * Nothing of the sync touches Redis but through this port; every call is mapped by the store
 * (a Redis outage is `store_unavailable`, whichever phase it hits).
 */
/** Applied event ids are remembered this long: a later delivery of the same event changes nothing. */
const EVENT_TTL_SECONDS = 24 * 3600;

export class SyncStore {
  /** Watermarks, removals over the window and held deltas of the inputs read for changes. */
  readonly deltas: DeltaStore;
  /** How fresh each input is. */
  readonly freshness: InputFreshnessStore;
  /** The digest of each input's source as its last applied full read found it. */
  readonly sourceDigests: SourceDigestStore;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    readonly records: SyncRecordStore,
    private readonly desired: DesiredStateStore,
    private readonly state: ReconcileStateStore,
  ) {
    this.deltas = new DeltaStore(redis, keys);
    this.freshness = new InputFreshnessStore(redis, keys);
    this.sourceDigests = new SourceDigestStore(redis, keys);
  }

  get clock() {
    return this.records.clock;
  }

  /** The owner of writes that name none: the configured directory's. */
  get defaultOwner(): Owner {
    return this.desired.defaultOwner;
  }

  /** The work of one run; `scope`: the input it replaces (absent: the desired state is its source). */
  forRun(syncId: string, scope: Owner | undefined): SyncRunStore {
    return new SyncRunStore(this.redis, this.keys, syncId, scope, scope ?? this.defaultOwner);
  }

  /** Users (or groups) the bridge manages that are still desired: of one input, or of all. */
  managedAndDesired(kind: IdentityKind, owner?: string): Promise<number> {
    return new StatusQueries(this.redis, this.keys).managedAndDesired(kind, { owner });
  }

  /** Writes a batch to the desired state as `owner`, with the sync's own dirty marks. */
  async writeDesired(changes: readonly DesiredChange[], owner: Owner): Promise<void> {
    await this.desired.apply(changes, { forSync: true, owner });
  }

  /**
   * Writes a batch to the desired state as `owner`, as any input's change: its dirty marks reach the
   * workers at once (a delta read's changes; a full sync enqueues its own: writeDesired).
   */
  /**
   * Applies an input's changes. `events`: the source's event ids their eventIndex points into: an
   * event already applied (by a hook) is skipped, atomically with the write (keys.ts, P:events:*).
   * Returns how many of the events it applied first.
   */
  async applyChanges(
    changes: readonly DesiredChange[],
    owner: Owner,
    events?: readonly string[],
  ): Promise<number> {
    const ids: string[] = [];
    const local = new Map<number, number>();
    const indexed = changes.map((c) => {
      const id = c.eventIndex === undefined ? undefined : events?.[c.eventIndex];
      if (c.eventIndex === undefined || id === undefined) return c;
      if (!local.has(c.eventIndex)) local.set(c.eventIndex, ids.push(id) - 1);
      return { ...c, eventIndex: local.get(c.eventIndex) };
    });
    const options = ids.length === 0 ? {} : { events: { source: owner, ids, ttlSeconds: EVENT_TTL_SECONDS } };
    const result = await this.desired.apply(indexed, { owner, ...options });
    return ids.length - result.duplicates.length;
  }

  /** The input's nested groups as its last read left them (group-edges.store.ts). */
  groupEdges(owner: string): GroupEdgesStore {
    return new GroupEdgesStore(this.redis, this.keys, owner);
  }

  /** The input's source lookup table as its last read left it (source-lookup.store.ts). */
  sourceLookup(owner: string): SourceLookupStore {
    return new SourceLookupStore(this.redis, this.keys, owner);
  }

  /** Of these ids, which are desired identities of `owner`. */
  async ownedBy(kind: IdentityKind, owner: string, ids: readonly string[]): Promise<boolean[]> {
    if (ids.length === 0) return [];
    const scores = await storeCall(() => this.redis.zmscore(this.keys.owned(kind, owner), ...ids));
    return scores.map((score) => score !== null);
  }

  async adopt(adoptions: readonly Adoption[]): Promise<void> {
    await this.state.adoptBulk(adoptions);
  }

  /** Parks an identity with its conflict; the holder of the account it matched is named. */
  async park({ kind, id, conflict }: Parking): Promise<void> {
    const { targetId } = conflict.account;
    const holder = targetId === undefined ? undefined : await this.state.sourceIdForTarget(kind, targetId);
    await this.state.park(kind, id, { ...conflict, ...(holder === undefined ? {} : { holder }) });
  }

  /** Desired identities per input. */
  ownerCounts(): Promise<Record<string, { users: number; groups: number }>> {
    return new StatusQueries(this.redis, this.keys).ownerCounts();
  }

  /** The first identities of each owner (users, then groups), named, at most `limit` in all. */
  async sampleOwned(owners: readonly string[], limit: number): Promise<OwnedIdentity[]> {
    const out: OwnedIdentity[] = [];
    const names = new IdentityNameQueries(this.redis, this.keys);
    for (const owner of owners) {
      for (const kind of ['user', 'group'] as const) {
        const room = limit - out.length;
        if (room <= 0) return out;
        const ids = await storeCall(() => this.redis.zrange(this.keys.owned(kind, owner), 0, room - 1));
        const named = await names.names(kind, ids);
        for (const id of ids) out.push({ kind, id, owner, name: named.get(id) ?? null });
      }
    }
    return out;
  }

  /** userName / displayName by id, for the desired identities among `ids`. */
  names(kind: IdentityKind, ids: readonly string[]): Promise<Map<string, string>> {
    return new IdentityNameQueries(this.redis, this.keys).names(kind, ids);
  }

  /** The source id the bridge knows for each platform id. */
  sourceIdsOf(kind: IdentityKind, targetIds: readonly string[]): Promise<Map<string, string>> {
    return new IdentityNameQueries(this.redis, this.keys).sourceIds(kind, targetIds);
  }

  /** Every group of the inputs other than `scope`, a batch at a time, with its target id if any. */
  async *groupsOfOtherInputs(scope: string): AsyncGenerator<{ id: string; targetId: string | undefined }[]> {
    const owners = await storeCall(() => this.redis.smembers(this.keys.owners()));
    const names = new IdentityNameQueries(this.redis, this.keys);
    for (const owner of owners.filter((o) => o !== scope)) {
      for await (const ids of sliceSortedSet(this.redis, this.keys.owned('group', owner), BATCH)) {
        const targets = await names.targetIds('group', ids);
        yield ids.map((id) => ({ id, targetId: targets.get(id) }));
      }
    }
  }
}

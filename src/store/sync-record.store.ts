import type { IdentityKey } from '../domain/identity.js';
import { formatKey } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { FINISH, MIGRATE_SLOTS, START, syncRecordKeys } from './lua/sync-record.lua.js';
import type { RedisClock } from './redis-clock.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { lastPolicyOf } from './sync-policy.queries.js';
import { lastCompletedOf } from './sync-baseline.queries.js';
import { toRecord, type SyncRecord, type SyncState } from './sync-record.fields.js';

export type { SyncPhase, SyncProgress, SyncRecord, SyncState } from './sync-record.fields.js';

const scripts = {
  start: new LuaScript(START),
  finish: new LuaScript(FINISH),
  migrateSlots: new LuaScript(MIGRATE_SLOTS),
};
const RETAINED_RUNS = 100;

/**
 * The sync slot of an input: its owner name (`*` when none is given: SyncService gives a sync of
 * the desired state as it is the directory's slot). One sync runs or waits for approval per slot:
 * inputs never wait for each other.
 */
export function syncSlot(owner: string | undefined): string {
  return owner ?? '*';
}

/** Full reconciliations in Redis: their records, the active slot, pending identities, held runs. */
export class SyncRecordStore {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    readonly clock: RedisClock,
  ) {}

  /**
   * Returns the new sync's id, or the id of the one already running or held in the same input's
   * slot. `stagedUsers`: the sync's snapshot was staged with the request
   * (store/sync-staging.store.ts), listing so many users.
   */
  async start(
    syncId: string,
    options: {
      dryRun: boolean;
      trigger: string;
      stagedUsers?: number;
      allowEmpty?: boolean;
      linkOnly?: boolean;
      /** The input whose identities the sync replaces; absent: the desired state is its source. */
      owner?: string;
      /** The slot it takes, when not its owner's (a sync of the desired state as it is: the directory's). */
      slot?: string;
    },
  ): Promise<{ started: boolean; syncId: string }> {
    const args = [
      syncId,
      this.clock.now(),
      options.dryRun ? '1' : '0',
      options.trigger,
      options.stagedUsers === undefined ? '' : String(options.stagedUsers),
      options.allowEmpty ? '1' : '0',
      options.linkOnly ? '1' : '0',
      options.owner ?? '',
      options.slot ?? syncSlot(options.owner),
    ];
    const keys = syncRecordKeys(this.keys, syncId);
    const [status, id] = (await storeCall(() => scripts.start.run(this.redis, keys, args))) as [
      string,
      string,
    ];
    if (status === 'started') await this.trimHistory();
    return { started: status === 'started', syncId: id };
  }

  /** The sync running or held in an input's slot; without one, in any slot. */
  async activeSyncId(owner?: string): Promise<string | undefined> {
    if (owner !== undefined)
      return (await storeCall(() => this.redis.hget(this.keys.syncActive(), syncSlot(owner)))) ?? undefined;
    return (await this.activeSyncs())[0];
  }

  /** Every sync running or held, one per input's slot, oldest first. */
  async activeSyncs(): Promise<string[]> {
    const ids = await storeCall(() => this.redis.hvals(this.keys.syncActive()));
    return ids.sort();
  }

  /**
   * Moves the one active sync of a bridge from before per-input slots (P:sync:active held its id
   * as a string) into its input's slot. Run at start; nothing to do once moved.
   */
  async migrateSlots(directory: string): Promise<void> {
    const family = this.keys.syncFamily();
    await storeCall(() =>
      scripts.migrateSlots.run(this.redis, [this.keys.syncActive()], [family.stem, family.suffix, directory]),
    );
  }

  async get(syncId: string): Promise<SyncRecord | undefined> {
    const hash = await storeCall(() => this.redis.hgetall(this.keys.sync(syncId)));
    return hash.state ? toRecord(syncId, hash) : undefined;
  }

  async list(limit: number): Promise<SyncRecord[]> {
    const ids = await storeCall(() => this.redis.zrevrange(this.keys.syncRuns(), 0, limit - 1));
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is SyncRecord => r !== undefined);
  }

  async update(
    syncId: string,
    fields: Partial<
      Record<
        | 'state'
        | 'startedAt'
        | 'progress'
        | 'plan'
        | 'source'
        | 'sourceUsers'
        | 'staged'
        | 'sourceUnchanged'
        | 'owner'
        | 'deltaFrom'
        | 'candidate'
        | 'policy'
        | 'preview'
        | 'skipped',
        unknown
      >
    >,
  ): Promise<void> {
    const flat = Object.entries(fields).flatMap(([k, v]) => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]);
    if (flat.length > 0) await storeCall(() => this.redis.hset(this.keys.sync(syncId), ...flat));
  }

  async finish(
    syncId: string,
    state: 'completed' | 'failed',
    fields: Record<string, unknown>,
  ): Promise<void> {
    await this.finishIf(syncId, [], state, fields);
  }

  /** Ends a sync only if it is still in one of the `expected` states (none listed: any); true when it did. */
  async finishIf(
    syncId: string,
    expected: readonly SyncState[],
    state: 'completed' | 'failed',
    fields: Record<string, unknown>,
  ): Promise<boolean> {
    const flat = Object.entries({ ...fields, state, finishedAt: this.clock.now() }).flatMap(([k, v]) => [
      k,
      typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v),
    ]);
    const keys = syncRecordKeys(this.keys, syncId);
    const done = await storeCall(() =>
      scripts.finish.run(this.redis, keys, [syncId, expected.join(','), ...flat]),
    );
    return done === 1;
  }

  /** Marks identities the sync waits on; a reconcile run that starts later clears its mark. */
  async addPending(syncId: string, keys: readonly IdentityKey[]): Promise<void> {
    const now = this.clock.now();
    for (let i = 0; i < keys.length; i += 1000) {
      const members = keys.slice(i, i + 1000).flatMap((k) => [now, formatKey(k)]);
      await storeCall(() => this.redis.zadd(this.keys.syncPending(syncId), ...members));
    }
  }

  async pendingCount(syncId: string): Promise<number> {
    return storeCall(() => this.redis.zcard(this.keys.syncPending(syncId)));
  }

  async pendingKeys(syncId: string, limit: number): Promise<string[]> {
    return storeCall(() => this.redis.zrange(this.keys.syncPending(syncId), 0, limit - 1));
  }

  async clearPending(syncId: string): Promise<void> {
    await storeCall(() => this.redis.del(this.keys.syncPending(syncId)));
  }

  /** Keeps a held sync's record until it ends (what it read of its source is kept beside it). */
  async saveHeld(syncId: string, held: unknown): Promise<void> {
    await storeCall(() => this.redis.set(this.keys.syncHeld(syncId), JSON.stringify(held)));
  }

  async held<T>(syncId: string): Promise<T | undefined> {
    const raw = await storeCall(() => this.redis.get(this.keys.syncHeld(syncId)));
    return raw ? (JSON.parse(raw) as T) : undefined;
  }

  /** The baseline of SOURCE_SHRINK_LIMIT (sync-baseline.queries.ts). */
  lastCompletedOf(
    source: string,
    owner: string | undefined,
    except: string,
  ): Promise<{ jobId: string; users: number } | undefined> {
    return lastCompletedOf(this.redis, this.keys, { source, owner, except });
  }

  /** The input's last applied scope and mapping (sync-policy.queries.ts). */
  lastPolicyOf(owner: string, except: string): Promise<SyncRecord['policy'] | null | undefined> {
    return lastPolicyOf(this.redis, this.keys, owner, except);
  }

  async cancelRequested(syncId: string): Promise<boolean> {
    return (await storeCall(() => this.redis.hget(this.keys.sync(syncId), 'cancel'))) === '1';
  }

  async requestCancel(syncId: string): Promise<void> {
    await storeCall(() => this.redis.hset(this.keys.sync(syncId), 'cancel', '1'));
  }

  private async trimHistory(): Promise<void> {
    const old = await this.redis.zrange(this.keys.syncRuns(), 0, -RETAINED_RUNS - 1);
    if (old.length === 0) return;
    await this.redis.del(...old.map((id) => this.keys.sync(id)));
    await this.redis.zrem(this.keys.syncRuns(), ...old);
  }
}

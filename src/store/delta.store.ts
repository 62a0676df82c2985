import type { DesiredChange } from '../domain/desired-change.js';
import type { Watermark } from '../domain/input.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { REMOVALS_WITHIN } from './lua/input.lua.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

const removalsWithin = new LuaScript(REMOVALS_WITHIN);

/** A held delta's changes and the watermark after them, kept until it is approved or cancelled. */
export interface HeldDelta {
  owner: string;
  /** Its changes as the input's scope and mapping made them. */
  changes: readonly DesiredChange[];
  watermark: Watermark;
  newestChangeAt?: number;
  /** The source's event ids its changes carry (their eventIndex points here): each applied once. */
  events?: readonly string[];
}

/**
 * What the delta reads of each input keep (keys.ts): the watermark they continue from, the users
 * their deltas removed over the last window (DEPROVISION_LIMIT counts them together, so that a slow
 * trickle of deletions cannot slip under a per-run limit), and a held delta's changes.
 */
export class DeltaStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async watermark(owner: string): Promise<Watermark | undefined> {
    const raw = await storeCall(() => this.redis.get(this.keys.inputWatermark(owner)));
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<Watermark>;
    const { kind, value, origin } = parsed;
    return typeof kind === 'string' && typeof value === 'string' && typeof origin === 'string'
      ? { kind, value, origin }
      : undefined;
  }

  async setWatermark(owner: string, watermark: Watermark): Promise<void> {
    await storeCall(() => this.redis.set(this.keys.inputWatermark(owner), JSON.stringify(watermark)));
  }

  /** Forgets the watermark: the next delta read waits for a full read to give one. */
  async clearWatermark(owner: string): Promise<void> {
    await storeCall(() => this.redis.del(this.keys.inputWatermark(owner)));
  }

  /** Users removed by the input's deltas within `windowMs`, after adding `run`'s (if any). */
  async removals(
    owner: string,
    windowMs: number,
    now: number,
    run?: { id: string; count: number },
  ): Promise<number> {
    const args = [now, windowMs, run?.id ?? '', run?.count ?? 0];
    const reply = await storeCall(() =>
      removalsWithin.run(this.redis, [this.keys.inputRemovals(owner)], args),
    );
    return Number(reply);
  }

  /** Keeps a held delta beside its sync record (removed with the record's work when it ends). */
  async keep(syncId: string, held: HeldDelta): Promise<void> {
    await storeCall(() => this.redis.set(this.keys.syncWork(syncId, 'delta'), JSON.stringify(held)));
  }

  async held(syncId: string): Promise<HeldDelta | undefined> {
    const raw = await storeCall(() => this.redis.get(this.keys.syncWork(syncId, 'delta')));
    return raw ? (JSON.parse(raw) as HeldDelta) : undefined;
  }
}

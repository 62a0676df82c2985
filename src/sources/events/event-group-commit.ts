import type { DesiredStateApi } from '../desired-state.api.js';
import type { DesiredChange } from '../../domain/desired-change.js';
import { isBridgeError } from '../../domain/errors.js';
import type { EventBatchChanges } from './generic-event.changes.js';

/** Event ids are remembered this long: a redelivery within it is acknowledged and ignored. */
export const EVENT_ID_TTL_SECONDS = 24 * 3600;

export interface EventsAccepted {
  /** Events applied by this request. */
  accepted: number;
  /** Events seen before (in the last 24 h, or earlier in the same batch): acknowledged, ignored. */
  duplicates: number;
}

interface Pending {
  batch: EventBatchChanges;
  resolve(result: EventsAccepted): void;
  reject(error: unknown): void;
}

/**
 * Group commit: requests that arrive while a write is in flight are applied together by the next
 * one — a single atomic `api.apply` (one Lua script, one enqueue) for all of them, up to
 * `maxEvents`. Alone, a request is written at once; under load, the per-call costs are shared.
 * Each request still lands whole or not at all (the group is atomic), and an event id that appears
 * in two requests of a group is applied for the first and a duplicate for the others. Requests
 * join a group only once validated (events.webhook.ts), and a group the store refuses is split.
 */
export class EventGroupCommit {
  private readonly pending: Pending[] = [];
  private writing = false;

  constructor(
    private readonly api: DesiredStateApi,
    private readonly maxEvents = 1000,
  ) {}

  submit(batch: EventBatchChanges): Promise<EventsAccepted> {
    if (batch.ids.length === 0) return Promise.resolve({ accepted: 0, duplicates: batch.repeated });
    return new Promise<EventsAccepted>((resolve, reject) => {
      this.pending.push({ batch, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) await this.write(this.takeGroup());
    } finally {
      this.writing = false;
    }
  }

  private takeGroup(): Pending[] {
    const group: Pending[] = [];
    let events = 0;
    for (const next of this.pending) {
      if (group.length > 0 && events + next.batch.ids.length > this.maxEvents) break;
      group.push(next);
      events += next.batch.ids.length;
    }
    this.pending.splice(0, group.length);
    return group;
  }

  /**
   * Writes a group; when the shared write fails, each request of it is written again on its own,
   * so that one request the store refuses fails alone and every other one gets its own answer (a
   * sender does not retry a 400: failing it for another's fault would lose its events). A failed
   * write changed nothing (the store's batch is checked whole before it writes). Redis being
   * unreachable fails them all at once: each would fail the same way.
   */
  private async write(group: readonly Pending[]): Promise<void> {
    try {
      const counts = await this.applyTogether(group);
      for (const entry of group) entry.resolve(counts.get(entry) ?? { accepted: 0, duplicates: 0 });
    } catch (error) {
      if (group.length === 1 || isBridgeError(error, 'store_unavailable')) {
        for (const entry of group) entry.reject(error);
        return;
      }
      for (const entry of group) await this.write([entry]);
    }
  }

  private async applyTogether(group: readonly Pending[]): Promise<Map<Pending, EventsAccepted>> {
    const ids: string[] = [];
    const owner = new Map<string, Pending>();
    const changes: DesiredChange[] = [];
    const counts = new Map<Pending, EventsAccepted>();
    for (const entry of group) {
      const count = { accepted: 0, duplicates: entry.batch.repeated };
      counts.set(entry, count);
      const positions = entry.batch.ids.map((id) => {
        if (owner.has(id)) return void count.duplicates++;
        owner.set(id, entry);
        count.accepted++;
        return ids.push(id) - 1;
      });
      for (const change of entry.batch.changes) {
        const position = positions[change.eventIndex ?? -1];
        if (position !== undefined) changes.push({ ...change, eventIndex: position });
      }
    }
    // Written as the `events` input: it owns what it creates and changes nothing another input owns.
    const result = await this.api.apply(changes, {
      owner: 'events',
      events: { source: 'events', ids, ttlSeconds: EVENT_ID_TTL_SECONDS },
    });
    for (const id of result.duplicates) {
      const entry = owner.get(id);
      const count = entry && counts.get(entry);
      if (count) {
        count.accepted--;
        count.duplicates++;
      }
    }
    return counts;
  }
}

import type { ObjectKind } from './entra-objects.js';

/**
 * Every change a Graph delta round can report, in the order it was made: the feed behind
 * `/users/delta` and `/groups/delta`. Sequence numbers are shared by both resources and grow by
 * one per entry; a delta or skip token seals the sequence number its round starts after.
 */

export type DeltaResource = 'users' | 'groups';

export type Change =
  | { change: 'created' | 'softDeleted' | 'restored' | 'hardDeleted' }
  | { change: 'updated'; props: string[] }
  | { change: 'member'; member: string; memberKind: ObjectKind; removed: boolean };

export type LogEntry = Change & { seq: number; at: number; id: string };

export class DeltaLog {
  private readonly entries: Record<DeltaResource, LogEntry[]> = { users: [], groups: [] };
  private seq = 0;

  /** The sequence number of the last change (0 before any). */
  head(): number {
    return this.seq;
  }

  append(resource: DeltaResource, id: string, change: Change, at: number): void {
    this.seq++;
    this.entries[resource].push({ ...change, id, seq: this.seq, at });
  }

  /** The changes of `resource` with after < seq ≤ upTo, oldest first. */
  between(resource: DeltaResource, after: number, upTo: number): LogEntry[] {
    const list = this.entries[resource];
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((list[mid] as LogEntry).seq <= after) low = mid + 1;
      else high = mid;
    }
    const found: LogEntry[] = [];
    for (let i = low; i < list.length && (list[i] as LogEntry).seq <= upTo; i++)
      found.push(list[i] as LogEntry);
    return found;
  }

  size(): number {
    return this.entries.users.length + this.entries.groups.length;
  }
}

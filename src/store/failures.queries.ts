import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { IdentityKey, IdentityKind } from '../domain/identity.js';
import { parseKey } from '../domain/identity.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';
import type { StoredError } from './reconcile-state.store.js';

/**
 * The read side of permanent failures (the `P:failures` zset, newest first) with the last error of
 * each identity (`le` of its hash): what GET /admin/failures pages through and a retry enqueues.
 * Key layout: keys.ts. A run that succeeds removes its identity from the set (RECORD_OUTCOME).
 */

export interface FailureItem {
  kind: IdentityKind;
  id: string;
  /** userName or displayName, when the identity is still desired. */
  name?: string;
  failedAt: number;
  error?: StoredError;
}

export interface FailureFilter {
  kind?: IdentityKind;
  /** An error code, e.g. target_invalid_request. */
  code?: string;
}

export interface FailurePage {
  /** Every identity in failure, whatever the filter. */
  total: number;
  items: FailureItem[];
  /** Position in the set to continue from; absent at the end. */
  next?: number;
}

/** Entries read per round trip while filling a page. */
const SCAN = 200;

export class FailureQueries {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
  ) {}

  count(): Promise<number> {
    return storeCall(() => this.redis.zcard(this.keys.failures()));
  }

  /**
   * A page of failures, newest first, from a position in the set. Filters are applied while
   * scanning, so a page may look past `limit` entries; `next` is where the scan stopped.
   */
  async page(filter: FailureFilter, from: number, limit: number): Promise<FailurePage> {
    const total = await this.count();
    const items: FailureItem[] = [];
    let position = from;
    while (items.length < limit && position < total) {
      const batch = await this.read(position, SCAN);
      if (batch.length === 0) break;
      for (const item of batch) {
        position++;
        if (matches(item, filter)) items.push(item);
        if (items.length === limit) break;
      }
    }
    return { total, items, ...(position < total ? { next: position } : {}) };
  }

  /** Every identity in failure (for "retry all"), or those matching a filter, read in chunks. */
  async allKeys(filter: FailureFilter = {}): Promise<IdentityKey[]> {
    if (filter.kind || filter.code) {
      const keys: IdentityKey[] = [];
      for (let from: number | undefined = 0; from !== undefined;) {
        const page: FailurePage = await this.page(filter, from, 1000);
        keys.push(...page.items.map(({ kind, id }) => ({ kind, id })));
        from = page.next;
      }
      return keys;
    }
    const keys: IdentityKey[] = [];
    for (let start = 0; ; start += 1000) {
      const members = await storeCall(() => this.redis.zrevrange(this.keys.failures(), start, start + 999));
      for (const member of members) {
        const key = parseKey(member);
        if (key) keys.push(key);
      }
      if (members.length < 1000) return keys;
    }
  }

  private async read(start: number, count: number): Promise<FailureItem[]> {
    const flat = await storeCall(() =>
      this.redis.zrevrange(this.keys.failures(), start, start + count - 1, 'WITHSCORES'),
    );
    const entries: { key: IdentityKey; at: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const key = parseKey(flat[i] ?? '');
      if (key) entries.push({ key, at: Number(flat[i + 1]) });
    }
    if (entries.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const { key } of entries) {
      pipeline.get(this.keys.doc(key.kind, key.id));
      pipeline.hget(this.keys.identity(key.kind, key.id), 'le');
    }
    const replies = await execPipeline(pipeline);
    return entries.map(({ key, at }, n) => {
      const d = replies[2 * n] as string | null;
      const le = replies[2 * n + 1] as string | null;
      return { kind: key.kind, id: key.id, failedAt: at, ...nameOf(key.kind, d), ...errorOf(le) };
    });
  }
}

function matches(item: FailureItem, filter: FailureFilter): boolean {
  return (!filter.kind || item.kind === filter.kind) && (!filter.code || item.error?.code === filter.code);
}

function nameOf(kind: IdentityKind, desired: string | null | undefined): { name?: string } {
  if (!desired) return {};
  try {
    const name =
      kind === 'user' ? parseStoredUser('', desired).userName : parseStoredGroup('', desired, []).displayName;
    return { name };
  } catch {
    return {};
  }
}

/** An identity's last error as its hash keeps it (`le`, JSON); undefined when unreadable. */
export function parseStoredError(json: string): StoredError | undefined {
  try {
    return JSON.parse(json) as StoredError;
  } catch {
    return undefined;
  }
}

function errorOf(json: string | null | undefined): { error?: StoredError } {
  const error = json ? parseStoredError(json) : undefined;
  return error ? { error } : {};
}

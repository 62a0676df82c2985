import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { LuaScript } from './lua-script.js';
import { PUSHED, READ_SUCCEEDED } from './lua/input.lua.js';
import { execPipeline, storeCall } from './redis-errors.js';

const readSucceeded = new LuaScript(READ_SUCCEEDED);
const pushed = new LuaScript(PUSHED);

/** How an input last heard from its source: a delta read, a poll of a log, a full read, a push. */
export type ReadKind = 'delta' | 'poll' | 'full' | 'push';

/** What the bridge knows of how fresh an input is (SPEC §4, GET /admin/status). */
export interface Freshness {
  /** When it last read its source successfully (ms), and how. */
  readAt?: number;
  readKind?: ReadKind;
  /** When the newest change it applied happened at the source, or was applied when unknown (ms). */
  changeAt?: number;
  /** Reads that failed since the last one that succeeded, and the last one's message. */
  failures: number;
  lastError?: string;
  /** The last failed read's error code (`source_unauthorized`: its credential was refused). */
  lastErrorCode?: string;
  /** Events first seen by a poll of the source's log: pushes (hooks) that were missed. */
  missed: number;
  /** What the last read cost, when it says: changes it applied, entries it read, how long. */
  cost?: ReadCost;
  /** What every read that said its cost cost, added up (since the key was made). */
  totals: ReadCost & { reads: number };
}

export interface ReadCost {
  changes: number;
  entriesRead: number;
  durationMs: number;
}

/**
 * Each input's freshness (keys.ts, P:input:fresh:<owner>): written by the pulls of an input (delta
 * reads, log polls, full reads) as they succeed or fail; read by the status, the dashboard and the
 * metrics. Times only grow: a late writer never moves one back.
 */
export class InputFreshnessStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async read(owners: readonly string[]): Promise<Map<string, Freshness>> {
    if (owners.length === 0) return new Map();
    const pipeline = this.redis.pipeline();
    for (const owner of owners) pipeline.hgetall(this.keys.inputFreshness(owner));
    const replies = (await execPipeline(pipeline)) as Record<string, string>[];
    return new Map(owners.map((owner, i) => [owner, parse(replies[i] ?? {})]));
  }

  /** A read that succeeded: the failures reset; `changeAt`, when it applied changes. */
  async readSucceeded(
    owner: string,
    read: { at: number; kind: ReadKind; changeAt?: number; cost?: ReadCost },
  ): Promise<void> {
    const args = [
      Math.round(read.at),
      read.kind,
      read.changeAt === undefined ? '' : Math.round(read.changeAt),
      read.cost === undefined ? '' : JSON.stringify(read.cost),
      ...(read.cost === undefined
        ? ['', '', '']
        : [read.cost.changes, read.cost.entriesRead, Math.round(read.cost.durationMs)]),
    ];
    await storeCall(() => readSucceeded.run(this.redis, [this.keys.inputFreshness(owner)], args));
  }

  /** A push from the source (a hook's delivery) at `at`, of a change made at `changeAt`. */
  async pushed(owner: string, push: { at: number; changeAt: number }): Promise<void> {
    const args = [Math.round(push.at), Math.round(push.changeAt)];
    await storeCall(() => pushed.run(this.redis, [this.keys.inputFreshness(owner)], args));
  }

  /** A read that failed (its message and code); returns how many failed in a row. */
  async readFailed(owner: string, message: string, code = ''): Promise<number> {
    const key = this.keys.inputFreshness(owner);
    const [failures] = (await execPipeline(
      this.redis
        .multi()
        .hincrby(key, 'failures', 1)
        .hset(key, 'lastError', message.slice(0, 500), 'lastErrorCode', code),
    )) as [number];
    return failures;
  }

  /** Events a poll saw first (the pushes that were missed). */
  async missed(owner: string, count: number): Promise<void> {
    if (count <= 0) return;
    await storeCall(() => this.redis.hincrby(this.keys.inputFreshness(owner), 'missed', count));
  }
}

function parse(hash: Record<string, string>): Freshness {
  const time = (field: string) => (hash[field] ? { [field]: Number(hash[field]) } : {});
  const kind = hash.readKind as ReadKind | undefined;
  return {
    ...time('readAt'),
    ...(kind ? { readKind: kind } : {}),
    ...time('changeAt'),
    failures: Number(hash.failures ?? 0),
    ...(hash.lastError ? { lastError: hash.lastError } : {}),
    ...(hash.lastErrorCode ? { lastErrorCode: hash.lastErrorCode } : {}),
    missed: Number(hash.missed ?? 0),
    ...(hash.cost ? { cost: JSON.parse(hash.cost) as ReadCost } : {}),
    totals: {
      reads: Number(hash.readsTotal ?? 0),
      changes: Number(hash.changesTotal ?? 0),
      entriesRead: Number(hash.entriesTotal ?? 0),
      durationMs: Number(hash.durationTotal ?? 0),
    },
  };
}

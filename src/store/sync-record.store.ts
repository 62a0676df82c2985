import type { IdentityKey } from '../domain/identity.js';
import { formatKey } from '../domain/identity.js';
import type { Watermark } from '../domain/input.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { FINISH, START, syncRecordKeys } from './lua/sync-record.lua.js';
import type { RedisClock } from './redis-clock.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import type { SyncError } from '../domain/sync-error.js';
import { lastPolicyOf } from './sync-policy.queries.js';

export type SyncState = 'queued' | 'running' | 'awaiting-approval' | 'completed' | 'failed';
export type SyncPhase =
  'queued' | 'reading-source' | 'listing-target' | 'planning' | 'applying' | 'awaiting-approval' | 'done';

export interface SyncProgress {
  phase: SyncPhase;
  done: number;
  total: number;
}

/** A full reconciliation as GET /admin/sync/{jobId} shows it (SPEC §6). */
export interface SyncRecord {
  jobId: string;
  state: SyncState;
  dryRun: boolean;
  trigger: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  progress: SyncProgress;
  plan?: Record<string, unknown>;
  summary?: Record<string, unknown>;
  error?: SyncError;
  /** The request said the directory may really be empty (SPEC §6, Guards). */
  allowEmpty: boolean;
  /** Records the matches as managed and writes nothing to the platform (SPEC §6). */
  linkOnly: boolean;
  /** The input whose identities the sync replaces (`okta`, `directory:<name>`); absent: every input's. */
  owner?: string;
  /** Where its users came from (`snapshot`, the DIRECTORY_SOURCE, `none`), once read. */
  source?: string;
  /** How many users that source listed. */
  sourceUsers?: number;
  /** What the sync read of its source is staged in Redis (a pushed snapshot; a directory, once read). */
  staged?: boolean;
  /** Where the source's delta reads continue once this sync is applied: its position as the read began. */
  deltaFrom?: Watermark;
  /** A preview's candidate scope and mapping (docs/scope-and-mapping.md), as the request gave it. */
  candidate?: unknown;
  /** The scope and mapping the sync read its input with: their fingerprint and settings. */
  policy?: { fingerprint: string; settings: unknown };
  /** How the sync's scope and mapping differ from the ones compared (a preview, a changed configuration). */
  preview?: Record<string, unknown>;
  /** Identities its input's scope and mapping could not map, left out of it: how many, the first few. */
  skipped?: { count: number; sample: { kind: string; label: string; reason: string }[] };
  /** Outcomes of the reconcile runs the sync waited on: "user:created" → n. */
  outcomes: Record<string, number>;
  /** Requests those runs sent, by method. */
  requests: Record<string, number>;
  cancelRequested: boolean;
}

const scripts = { start: new LuaScript(START), finish: new LuaScript(FINISH) };
const RETAINED_RUNS = 100;

/** Full reconciliations in Redis: their records, the active slot, pending identities, held runs. */
export class SyncRecordStore {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    readonly clock: RedisClock,
  ) {}

  /**
   * Returns the new sync's id, or the id of the one already running or held. `stagedUsers`: the
   * sync's snapshot was staged with the request (store/sync-staging.store.ts), listing so many users.
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
    ];
    const keys = syncRecordKeys(this.keys, syncId);
    const [status, id] = (await storeCall(() => scripts.start.run(this.redis, keys, args))) as [
      string,
      string,
    ];
    if (status === 'started') await this.trimHistory();
    return { started: status === 'started', syncId: id };
  }

  async activeSyncId(): Promise<string | undefined> {
    return (await storeCall(() => this.redis.get(this.keys.syncActive()))) ?? undefined;
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

  /**
   * The last completed sync (not a dry run, not `except`) that read the named source for the same
   * input (`owner`, its directory; a record from before owners were recorded matches any), with
   * the number of users it listed: the baseline of SOURCE_SHRINK_LIMIT.
   */
  async lastCompletedOf(
    source: string,
    owner: string | undefined,
    except: string,
  ): Promise<{ jobId: string; users: number } | undefined> {
    const ids = await storeCall(() => this.redis.zrevrange(this.keys.syncRuns(), 0, -1));
    for (let i = 0; i < ids.length; i += 20) {
      const batch = ids.slice(i, i + 20).filter((id) => id !== except);
      // A link-only run removes nothing and is never held: it is no baseline for the shrink guard.
      const fields = ['state', 'dryRun', 'source', 'sourceUsers', 'owner', 'linkOnly'] as const;
      const rows = await storeCall(() =>
        Promise.all(batch.map((id) => this.redis.hmget(this.keys.sync(id), ...fields))),
      );
      for (const [n, [state, dryRun, name, users, by, linkOnly]] of rows.entries()) {
        const jobId = batch[n];
        const sameInput = by === null || owner === undefined || by === owner;
        const applied = state === 'completed' && dryRun !== '1' && linkOnly !== '1';
        if (jobId && applied && name === source && sameInput && users) return { jobId, users: Number(users) };
      }
    }
    return undefined;
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

function toRecord(jobId: string, hash: Record<string, string>): SyncRecord {
  const json = <T>(field: string): T | undefined =>
    hash[field] ? (JSON.parse(hash[field]) as T) : undefined;
  const iso = (field: string) => (hash[field] ? new Date(Number(hash[field])).toISOString() : undefined);
  const counters = (prefix: string) =>
    Object.fromEntries(
      Object.entries(hash)
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, v]) => [
          k.slice(prefix.length).replace(/^u:/, 'user:').replace(/^g:/, 'group:'),
          Number(v),
        ]),
    );
  return {
    jobId,
    state: hash.state as SyncState,
    dryRun: hash.dryRun === '1',
    trigger: hash.trigger ?? 'admin',
    createdAt: iso('createdAt') ?? new Date(0).toISOString(),
    ...(iso('startedAt') ? { startedAt: iso('startedAt') } : {}),
    ...(iso('finishedAt') ? { finishedAt: iso('finishedAt') } : {}),
    progress: json<SyncProgress>('progress') ?? { phase: 'queued', done: 0, total: 0 },
    ...(hash.plan ? { plan: json('plan') } : {}),
    ...(hash.summary ? { summary: json('summary') } : {}),
    ...(hash.error ? { error: json('error') } : {}),
    allowEmpty: hash.allowEmpty === '1',
    linkOnly: hash.linkOnly === '1',
    ...(hash.owner ? { owner: hash.owner } : {}),
    ...(hash.source ? { source: hash.source } : {}),
    ...(hash.sourceUsers ? { sourceUsers: Number(hash.sourceUsers) } : {}),
    ...(hash.staged === '1' ? { staged: true } : {}),
    ...(hash.deltaFrom ? { deltaFrom: json<Watermark>('deltaFrom') } : {}),
    ...(hash.candidate ? { candidate: json('candidate') } : {}),
    ...(hash.policy ? { policy: json<SyncRecord['policy']>('policy') } : {}),
    ...(hash.preview ? { preview: json('preview') } : {}),
    ...(hash.skipped ? { skipped: json<SyncRecord['skipped']>('skipped') } : {}),
    outcomes: counters('c:'),
    requests: counters('r:'),
    cancelRequested: hash.cancel === '1',
  };
}

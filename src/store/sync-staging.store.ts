import { canonicalGroupJson, canonicalUserJson } from '../domain/canonical.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import type * as Ledger from '../domain/snapshot-ledger.js';
import { SCRATCH_TABLES, syncWorkParts, type Keys, type ScratchTable, type SyncWorkPart } from './keys.js';
import { LuaScript } from './lua-script.js';
import { EXPIRE_KEYS, RECORD_ITEMS, REMEMBER, STAGE_ITEMS } from './lua/sync-staging.lua.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';
import { inSlices } from './script-slices.js';

/** Ids asked of Redis in one command at most (member checks, deferred members). */
const LOOKUP_SLICE = 2_000;

const scripts = {
  record: new LuaScript(RECORD_ITEMS),
  stage: new LuaScript(STAGE_ITEMS),
  remember: new LuaScript(REMEMBER),
  expire: new LuaScript(EXPIRE_KEYS),
};

/** A pushed snapshot's staging lives this long unless its sync is held (then until it ends). */
export const STAGING_TTL_MS = 24 * 3600 * 1000;

const letter = (kind: Ledger.SnapshotKind | IdentityKind) =>
  kind === 'users' || kind === 'user' ? 'u' : 'g';

/**
 * What one full sync keeps of its source in Redis (P:sync:<id>:src:…, keys.ts): the ledger of the
 * rules across items (domain/snapshot-ledger.ts), the ids in the source's order, the desired state
 * of the identities it changes, and the scratch tables a source reads with. Nothing of it grows the
 * process: every call handles one batch. Dropped when the sync ends (sync-record.lua.ts FINISH).
 */
export class SyncStaging implements Ledger.SnapshotLedger {
  /** `owner`: the input the sync writes as; other inputs' users may be named as group members. */
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    readonly syncId: string,
    private readonly ttlMs = STAGING_TTL_MS,
    private readonly owner?: string,
  ) {}

  key(part: SyncWorkPart): string {
    return this.keys.syncWork(this.syncId, part);
  }

  async record(
    kind: Ledger.SnapshotKind,
    entries: readonly Ledger.LedgerEntry[],
  ): Promise<Ledger.LedgerAnswer[]> {
    // Up to 3 writes an item.
    return inSlices(
      entries,
      () => 3,
      (slice) => this.recordSlice(kind, slice),
    );
  }

  private async recordSlice(
    kind: Ledger.SnapshotKind,
    entries: readonly Ledger.LedgerEntry[],
  ): Promise<Ledger.LedgerAnswer[]> {
    const k = letter(kind);
    const keys = [this.key(`src:${k}:ids`), this.key(`src:${k}:names`), this.key(`src:${k}:ext`)];
    const args = entries.flatMap((e) => [encodeRef(e.ref), e.id ?? '', e.name ?? '', e.externalId ?? '']);
    const reply = (await storeCall(() =>
      scripts.record.run(this.redis, keys, [this.ttlMs, ...args]),
    )) as string[];
    return entries.map((_, i) => {
      const [id, name, target] = reply.slice(i * 3, i * 3 + 3);
      return {
        ...(id ? { id: decodeRef(id) } : {}),
        ...(name ? { name: decodeRef(name) } : {}),
        ...(target ? { target: decodeRef(target) } : {}),
      };
    });
  }

  async hasUsers(ids: readonly string[]): Promise<boolean[]> {
    const known: boolean[] = [];
    // A batch of groups may name hundreds of thousands of members: asked a slice at a time, as
    // one command's arguments they would overflow the call stack.
    for (let i = 0; i < ids.length; i += LOOKUP_SLICE) {
      const slice = ids.slice(i, i + LOOKUP_SLICE);
      const found = await storeCall(() => this.redis.hmget(this.key('src:u:ids'), ...slice));
      for (const value of found) known.push(value !== null);
    }
    return known;
  }

  /** Desired users whose owner is another input than the sync's (none when it writes as no one). */
  async heldElsewhere(ids: readonly string[]): Promise<boolean[]> {
    const owner = this.owner;
    if (ids.length === 0 || owner === undefined) return ids.map(() => false);
    const pipeline = this.redis.pipeline();
    for (const id of ids)
      pipeline.hget(this.keys.identity('user', id), 'o').exists(this.keys.doc('user', id));
    const replies = await execPipeline(pipeline);
    return ids.map((_, n) => {
      const [o, exists] = replies.slice(2 * n, 2 * n + 2);
      return typeof o === 'string' && o !== owner && exists === 1;
    });
  }

  async defer(checks: readonly Ledger.MemberCheck[]): Promise<void> {
    const key = this.key('src:members');
    for (let i = 0; i < checks.length; i += LOOKUP_SLICE) {
      const lines = checks
        .slice(i, i + LOOKUP_SLICE)
        .map((c) => JSON.stringify([encodeRef(c.group), c.position, c.member]));
      await storeCall(() =>
        this.redis
          .multi()
          .rpush(key, ...lines)
          .pexpire(key, this.ttlMs)
          .exec(),
      );
    }
  }

  async *deferred(batchSize: number): AsyncIterable<Ledger.MemberCheck[]> {
    const key = this.key('src:members');
    for (let start = 0; ; start += batchSize) {
      const lines = await storeCall(() => this.redis.lrange(key, start, start + batchSize - 1));
      if (lines.length === 0) return;
      yield lines.map((line) => {
        const [group, position, member] = JSON.parse(line) as [string, number, string];
        return { group: decodeRef(group), position, member };
      });
    }
  }

  /** Stages valid items: their ids in order, their desired state where it differs from the stored one. */
  async stage(kind: 'user', items: readonly DesiredUser[]): Promise<number>;
  async stage(kind: 'group', items: readonly DesiredGroup[]): Promise<number>;
  async stage(kind: IdentityKind, items: readonly (DesiredUser | DesiredGroup)[]): Promise<number> {
    // A few commands an item, and one a member.
    const weight = (item: DesiredUser | DesiredGroup) => 4 + ('members' in item ? item.members.length : 0);
    const counts = await inSlices(items, weight, async (slice) => [await this.stageSlice(kind, slice)]);
    return counts.reduce((sum, n) => sum + n, 0);
  }

  private async stageSlice(
    kind: IdentityKind,
    items: readonly (DesiredUser | DesiredGroup)[],
  ): Promise<number> {
    const k = letter(kind);
    const keys = [this.key(`src:${k}:order`), this.key(`src:${k}:docs`)];
    const args: (string | number)[] = [this.ttlMs, k];
    for (const item of items) {
      keys.push(this.keys.doc(kind, item.id));
      if (kind === 'user') {
        args.push(item.id, canonicalUserJson(item as DesiredUser));
        continue;
      }
      const group = item as DesiredGroup;
      keys.push(this.keys.members(group.id));
      args.push(group.id, canonicalGroupJson(group), group.members.join('\n'), group.members.length);
    }
    return (await storeCall(() => scripts.stage.run(this.redis, keys, args))) as number;
  }

  async remember(table: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    if (entries.length === 0) return;
    const args = [this.ttlMs, ...entries.flat()];
    await storeCall(() => scripts.remember.run(this.redis, [this.key(scratch(table))], args));
  }

  async recall(table: string, keys: readonly string[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return [];
    const values = await storeCall(() => this.redis.hmget(this.key(scratch(table)), ...keys));
    return values.map((v) => v ?? undefined);
  }

  /** How many users the staged source lists. */
  async userCount(): Promise<number> {
    return storeCall(() => this.redis.llen(this.key('src:u:order')));
  }

  /** Sets the time to live of what is staged, or keeps it until the sync ends (0: a held sync). */
  async expire(ttlMs: number): Promise<void> {
    const keys = syncWorkParts().source.map((part) => this.key(part));
    await storeCall(() => scripts.expire.run(this.redis, keys, [ttlMs]));
  }

  /** Deletes the source's staging (`source`), the run's work (`run`), or both. */
  async drop(which: 'source' | 'run' | 'all', keep: readonly SyncWorkPart[] = []): Promise<void> {
    const parts = syncWorkParts();
    const chosen = which === 'all' ? [...parts.source, ...parts.run] : parts[which];
    const keys = chosen.filter((part) => !keep.includes(part)).map((part) => this.key(part));
    await storeCall(() => this.redis.unlink(...keys));
  }
}

function scratch(table: string): SyncWorkPart {
  const known = SCRATCH_TABLES.find((t): t is ScratchTable => t === table);
  if (known === undefined) throw new Error(`no scratch table ${table}`);
  return `src:scratch:${known}`;
}

/** An item ref as the ledger keeps it: its position, or [position, label, line] as JSON. */
export function encodeRef(ref: Ledger.ItemRef): string {
  if (ref.label === undefined && ref.line === undefined) return String(ref.index);
  return JSON.stringify([ref.index, ref.label ?? null, ref.line ?? null]);
}

export function decodeRef(text: string): Ledger.ItemRef {
  if (!text.startsWith('[')) return { index: Number(text) };
  const [index, label, line] = JSON.parse(text) as [number, string | null, number | null];
  return { index, ...(label === null ? {} : { label }), ...(line === null ? {} : { line }) };
}

import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import { formatKey } from '../domain/identity.js';
import type { ConflictAccount } from './conflicts.store.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { PARK_IDENTITY, parkIdentityKeys } from './lua/conflicts.lua.js';
import {
  ADOPT_BULK,
  adoptBulkKeys,
  FORGET_TARGET,
  identityStateKeys,
  MARK_CREATING,
  RECORD_OUTCOME,
  recordOutcomeKeys,
  SET_TARGET,
} from './lua/reconcile-state.lua.js';
import type { RedisClock } from './redis-clock.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';

const SCRIPTS = {
  setTarget: new LuaScript(SET_TARGET),
  adoptBulk: new LuaScript(ADOPT_BULK),
  markCreating: new LuaScript(MARK_CREATING),
  forgetTarget: new LuaScript(FORGET_TARGET),
  recordOutcome: new LuaScript(RECORD_OUTCOME),
  park: new LuaScript(PARK_IDENTITY),
};

const letter = (kind: IdentityKind) => (kind === 'user' ? 'u' : 'g');

export interface StoredError {
  code: string;
  message: string;
  status?: number;
  detail?: string;
  at: number;
}

/** What a reconcile run reads about one identity: desired state and what we know of the target. */
export interface IdentityState<D> {
  desired: D | undefined;
  targetId: string | undefined;
  managed: boolean;
  /** When the bridge last wrote to the target for it (ms); a full sync's older observation is stale. */
  lastAppliedAt: number | undefined;
  /** The externalId of a create sent whose answer was lost, until the identity is matched. */
  pendingCreate: string | undefined;
  /** The conflict that parks it: a parked identity is never reconciled (SPEC §6, Ownership). */
  parked?: string;
  /** The input that owns it (scim, events, okta, directory:<name>). */
  owner?: string;
}

export interface HistoryEntry {
  at: number;
  type: 'signal' | 'decision' | 'request' | 'error';
  [field: string]: unknown;
}

/** The scores of an identity's dirty marks (P:dirty, P:dirty:sync), as a run saw them at its start. */
export interface SeenMarks {
  dirty?: number;
  sync?: number;
}

export interface Outcome {
  startedAt: number;
  /** Read before the desired state: a mark whose score has grown since is left for another run. */
  seen: SeenMarks;
  /** An action (created, updated, …), 'failed' for a permanent failure, 'retrying' for a transient one. */
  result: string;
  error?: StoredError;
  requests: Record<string, number>;
  history: HistoryEntry[];
}

/**
 * What the reconciler knows and records per identity: the target id mapping, whether the bridge
 * manages it, the outcome of each run, failures and history. Key layout: keys.ts.
 */
export class ReconcileStateStore {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    readonly clock: RedisClock,
  ) {}

  async userState(id: string): Promise<IdentityState<DesiredUser>> {
    const [d, fields] = await storeCall(() =>
      Promise.all([
        this.redis.get(this.keys.doc('user', id)),
        this.redis.hmget(this.keys.identity('user', id), ...STATE_FIELDS),
      ]),
    );
    return { desired: d ? parseStoredUser(id, d) : undefined, ...mapping(fields) };
  }

  async groupState(id: string): Promise<IdentityState<DesiredGroup>> {
    const [d, fields, members] = await storeCall(() =>
      Promise.all([
        this.redis.get(this.keys.doc('group', id)),
        this.redis.hmget(this.keys.identity('group', id), ...STATE_FIELDS),
        this.redis.smembers(this.keys.members(id)),
      ]),
    );
    return { desired: d ? parseStoredGroup(id, d, members.sort()) : undefined, ...mapping(fields) };
  }

  /**
   * Target ids of users, whether each is still desired (absent users are left out of groups) and
   * whether it is parked (never provisioned while parked: a group does not wait for it).
   */
  async userTargets(ids: readonly string[]): Promise<Map<string, MemberTarget>> {
    const result = new Map<string, MemberTarget>();
    for (let i = 0; i < ids.length; i += 1000) {
      const batch = ids.slice(i, i + 1000);
      const pipeline = this.redis.pipeline();
      for (const id of batch) {
        pipeline.hmget(this.keys.identity('user', id), 't', 'pk');
        pipeline.exists(this.keys.doc('user', id));
      }
      const replies = await execPipeline(pipeline);
      batch.forEach((id, n) => {
        const [t, pk] = (replies[2 * n] as (string | null)[] | undefined) ?? [];
        const desired = replies[2 * n + 1] === 1;
        result.set(id, { ...(t ? { targetId: t } : {}), desired, ...(pk ? { parked: true } : {}) });
      });
    }
    return result;
  }

  /** The input that owns an identity; undefined for one stored before owners existed. */
  async ownerOf(kind: IdentityKind, id: string): Promise<string | undefined> {
    return (await storeCall(() => this.redis.hget(this.keys.identity(kind, id), 'o'))) ?? undefined;
  }

  /**
   * Parks an identity while reconciling it and records the conflict (its platform account is managed
   * for another input's identity, or it is ambiguous), in one script. Returns the conflict's id;
   * undefined when the identity is no longer desired.
   */
  async park(
    kind: IdentityKind,
    id: string,
    conflict: { kind: 'account' | 'ambiguous'; holder?: string; account: ConflictAccount },
  ): Promise<string | undefined> {
    const { keys, families } = parkIdentityKeys(this.keys, kind, id);
    const args = [
      this.clock.now(),
      letter(kind),
      id,
      conflict.kind,
      conflict.holder ?? '',
      JSON.stringify(conflict.account),
      ...families,
    ];
    const reply = (await storeCall(() => SCRIPTS.park.run(this.redis, keys, args))) as string;
    return reply === '' ? undefined : reply;
  }

  async setTarget(kind: IdentityKind, id: string, targetId: string): Promise<void> {
    const keys = identityStateKeys(this.keys, kind, id);
    await storeCall(() => SCRIPTS.setTarget.run(this.redis, keys, [id, targetId]));
  }

  /** Notes a create about to be sent, with the externalId it carries ('' forgets it). */
  async markCreating(kind: IdentityKind, id: string, externalId: string): Promise<void> {
    const keys = identityStateKeys(this.keys, kind, id);
    await storeCall(() => SCRIPTS.markCreating.run(this.redis, keys, [id, externalId]));
  }

  /**
   * Records target ids found by a full sync's listing, for identities that have none yet; an
   * existing mapping (a reconcile run may have just written it) is never overwritten.
   */
  async adoptBulk(items: readonly { kind: IdentityKind; id: string; targetId: string }[]): Promise<number> {
    let adopted = 0;
    const now = this.clock.now();
    for (let i = 0; i < items.length; i += 1000) {
      const batch = items.slice(i, i + 1000);
      const args = batch.flatMap((item) => [letter(item.kind), item.id, item.targetId]);
      const keys = adoptBulkKeys(this.keys, batch);
      const reply = await storeCall(() => SCRIPTS.adoptBulk.run(this.redis, keys, [now, ...args]));
      adopted += Number(reply);
    }
    return adopted;
  }

  async forgetTarget(kind: IdentityKind, id: string, drop = false): Promise<void> {
    const keys = identityStateKeys(this.keys, kind, id);
    await storeCall(() => SCRIPTS.forgetTarget.run(this.redis, keys, [id, drop ? 'drop' : '']));
  }

  async recordOutcome(kind: IdentityKind, id: string, outcome: Outcome): Promise<void> {
    const { keys, families } = recordOutcomeKeys(this.keys, kind, id);
    const args = [
      formatKey({ kind, id }),
      outcome.startedAt,
      this.clock.now(),
      outcome.result,
      outcome.error ? JSON.stringify(outcome.error) : '',
      JSON.stringify(outcome.requests),
      outcome.seen.dirty === undefined ? '' : String(outcome.seen.dirty),
      outcome.seen.sync === undefined ? '' : String(outcome.seen.sync),
      ...families,
      // The sync record's counter of runs of this kind with this result (read by sync-record.store.ts).
      `c:${letter(kind)}:${outcome.result}`,
      ...outcome.history.map((entry) => JSON.stringify(entry)),
    ];
    await storeCall(() => SCRIPTS.recordOutcome.run(this.redis, keys, args));
  }

  /** The scores of an identity's dirty marks now; a run reads them before the desired state. */
  async seenMarks(kind: IdentityKind, id: string): Promise<SeenMarks> {
    const key = formatKey({ kind, id });
    const [dirty, sync] = await storeCall(() =>
      Promise.all([
        this.redis.zscore(this.keys.dirty(), key),
        this.redis.zscore(this.keys.dirtyForSync(), key),
      ]),
    );
    return {
      ...(dirty === null ? {} : { dirty: Number(dirty) }),
      ...(sync === null ? {} : { sync: Number(sync) }),
    };
  }

  async groupsOfUser(userId: string): Promise<string[]> {
    // Every "<userId>\n<groupId>" sorts between "<userId>\n" and "<userId>\x0b" (the byte after \n).
    const prefix = `${userId}\n`;
    const entries = await storeCall(() =>
      this.redis.zrangebylex(this.keys.memberOf(), `[${prefix}`, `(${userId}\u000b`),
    );
    return entries.map((entry) => entry.slice(prefix.length));
  }

  async sourceIdForTarget(kind: IdentityKind, targetId: string): Promise<string | undefined> {
    return (await storeCall(() => this.redis.hget(this.keys.targetIdIndex(kind), targetId))) ?? undefined;
  }

  async managedCount(kind: IdentityKind): Promise<number> {
    return storeCall(() => this.redis.scard(this.keys.managed(kind)));
  }

  /** Dirty marks from a time on, oldest first (score: the time of the change, ms). */
  async dirtySince(from: number, limit: number, offset = 0): Promise<{ key: string; score: number }[]> {
    const flat = await storeCall(() =>
      this.redis.zrangebyscore(this.keys.dirty(), from, '+inf', 'WITHSCORES', 'LIMIT', offset, limit),
    );
    const marks: { key: string; score: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      marks.push({ key: flat[i] as string, score: Number(flat[i + 1]) });
    return marks;
  }

  /** Identity keys with a change older than the given time and no completed run since. */
  async staleDirtyKeys(olderThan: number, limit: number): Promise<string[]> {
    const [fed, forSync] = await storeCall(() =>
      Promise.all(
        [this.keys.dirty(), this.keys.dirtyForSync()].map((key) =>
          this.redis.zrangebyscore(key, '-inf', olderThan, 'LIMIT', 0, limit),
        ),
      ),
    );
    return [...new Set([...(fed ?? []), ...(forSync ?? [])])].slice(0, limit);
  }

  async history(kind: IdentityKind, id: string, limit = 20): Promise<HistoryEntry[]> {
    const raw = await storeCall(() => this.redis.lrange(this.keys.history(kind, id), 0, limit - 1));
    return raw.map((line) => JSON.parse(line) as HistoryEntry);
  }
}

export interface MemberTarget {
  targetId?: string;
  desired: boolean;
  parked?: true;
}

const STATE_FIELDS = ['t', 'm', 'la', 'pc', 'pk', 'o'] as const;

function mapping([t, m, la, pc, pk, o]: (string | null)[]) {
  return {
    targetId: t ?? undefined,
    managed: m === '1',
    lastAppliedAt: la ? Number(la) : undefined,
    pendingCreate: pc ?? undefined,
    ...(pk ? { parked: pk } : {}),
    ...(o ? { owner: o } : {}),
  };
}

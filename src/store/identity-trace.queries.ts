import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import { formatKey } from '../domain/identity.js';
import { ConflictStore, type Conflict } from './conflicts.store.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import type { HistoryEntry, StoredError } from './reconcile-state.store.js';

/**
 * The read side of one identity for operators (GET /admin/identities, `scim-bridge explain`):
 * everything the bridge knows about it — desired state, target mapping, last outcome, failure and
 * dirty marks, and its history. It reads the key layout documented in keys.ts and never writes.
 */

/**
 * How a key found the identity: its id (the bridge's id for SCIM push, the source's id otherwise),
 * its userName / displayName, the externalId its input sent (the IdP's id: the Entra object id,
 * the Okta user id), or its platform account's id.
 */
export type MatchedBy = 'id' | 'userName' | 'displayName' | 'externalId' | 'targetId';

export interface IdentityTrace {
  kind: IdentityKind;
  id: string;
  matchedBy: MatchedBy;
  /** Absent when the identity should not exist (deleted at the source, deprovisioning pending or done). */
  desired?: DesiredUser | DesiredGroup;
  targetId?: string;
  managed: boolean;
  /** The input that owns it (scim, events, okta, directory:<name>); absent if stored before owners. */
  owner?: string;
  /** Set while parked: the conflict an admin resolves (GET /admin/conflicts). */
  parked?: Conflict;
  createdAt?: number;
  changedAt?: number;
  lastAppliedAt?: number;
  lastAttemptAt?: number;
  lastResult?: string;
  lastError?: StoredError;
  /** When it entered the failures set (ms). */
  failedAt?: number;
  /** Time of the newest change not reconciled yet (ms). */
  dirtySince?: number;
  /** The held sync whose approval its removal (deprovisioning, deletion, members out) waits for. */
  heldBy?: string;
  /** Users: the groups listing the user. */
  groups?: string[];
  /** Newest first, as stored (capped). */
  history: HistoryEntry[];
}

const FIELDS = ['t', 'm', 'cr', 'ts', 'la', 'lt', 'lr', 'le', 'o', 'pk'] as const;

export class IdentityTraceQueries {
  private readonly conflicts: ConflictStore;

  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
  ) {
    this.conflicts = new ConflictStore(redis, keys);
  }

  /**
   * Finds an identity the way an admin knows it: by its id (the bridge's or the source's), then by
   * userName (users) or displayName (groups) case-insensitively, then by the externalId its input
   * sent, then by its platform account's id. An identity the store has dropped is still found by
   * its id while its history lasts.
   */
  async resolve(kind: IdentityKind, key: string): Promise<{ id: string; matchedBy: MatchedBy } | undefined> {
    const [hash, history, byName, byExternalId, byTargetId] = await storeCall(() =>
      Promise.all([
        this.redis.exists(this.keys.identity(kind, key)),
        this.redis.exists(this.keys.history(kind, key)),
        this.redis.hget(this.keys.nameIndex(kind), key.toLowerCase()),
        this.redis.hget(this.keys.externalIdIndex(kind), key),
        this.redis.hget(this.keys.targetIdIndex(kind), key),
      ]),
    );
    if (hash > 0 || history > 0) return { id: key, matchedBy: 'id' };
    if (byName !== null) return { id: byName, matchedBy: kind === 'user' ? 'userName' : 'displayName' };
    if (byExternalId !== null) return { id: byExternalId, matchedBy: 'externalId' };
    if (byTargetId !== null) return { id: byTargetId, matchedBy: 'targetId' };
    return undefined;
  }

  async trace(kind: IdentityKind, key: string): Promise<IdentityTrace | undefined> {
    const found = await this.resolve(kind, key);
    if (!found) return undefined;
    const { id } = found;
    const ikey = formatKey({ kind, id });
    const related =
      kind === 'user'
        ? this.redis
            .zrangebylex(this.keys.memberOf(), `[${id}\n`, `(${id}\u000b`)
            .then((entries) => entries.map((entry) => entry.slice(id.length + 1)))
        : this.redis.smembers(this.keys.members(id));
    const [d, fields, history, failedAt, dirtySince, relatedIds, heldBy] = await storeCall(() =>
      Promise.all([
        this.redis.get(this.keys.doc(kind, id)),
        this.redis.hmget(this.keys.identity(kind, id), ...FIELDS),
        this.redis.lrange(this.keys.history(kind, id), 0, -1),
        this.redis.zscore(this.keys.failures(), ikey),
        this.redis
          .zscore(this.keys.dirty(), ikey)
          .then(async (fed) => fed ?? (await this.redis.zscore(this.keys.dirtyForSync(), ikey))),
        related,
        this.heldBy(kind, id),
      ]),
    );
    const [t, m, cr, ts, la, lt, lr, le, o, pk] = fields;
    const sortedIds = relatedIds.slice().sort();
    const parked = pk ? await this.conflicts.get(pk) : undefined;
    return {
      kind,
      ...found,
      ...(d
        ? { desired: kind === 'user' ? parseStoredUser(id, d) : parseStoredGroup(id, d, sortedIds) }
        : {}),
      ...(t ? { targetId: t } : {}),
      managed: m === '1',
      ...(o ? { owner: o } : {}),
      ...(parked ? { parked } : {}),
      ...numberField('createdAt', cr),
      ...numberField('changedAt', ts),
      ...numberField('lastAppliedAt', la),
      ...numberField('lastAttemptAt', lt),
      ...(lr ? { lastResult: lr } : {}),
      ...(le ? { lastError: parseJson<StoredError>(le) } : {}),
      ...numberField('failedAt', failedAt),
      ...numberField('dirtySince', dirtySince),
      ...(heldBy ? { heldBy } : {}),
      ...(kind === 'user' ? { groups: sortedIds } : {}),
      history: history.map((line) => parseJson<HistoryEntry>(line)),
    };
  }

  /**
   * The sync awaiting approval (in any input's slot) that holds a removal of this identity, if any: a user it would
   * deprovision, a group it would delete or take members out of.
   */
  private async heldBy(kind: IdentityKind, id: string): Promise<string | undefined> {
    for (const syncId of await this.redis.hvals(this.keys.syncActive())) {
      const [state, held] = await Promise.all([
        this.redis.hget(this.keys.sync(syncId), 'state'),
        this.redis.sismember(this.keys.syncWork(syncId, 'removals'), `${kind}:${id}`),
      ]);
      if (state === 'awaiting-approval' && held === 1) return syncId;
    }
    return undefined;
  }
}

function numberField<K extends string>(name: K, value: string | null | undefined): { [P in K]?: number } {
  return value === null || value === undefined || value === ''
    ? {}
    : ({ [name]: Number(value) } as { [P in K]?: number });
}

/** Stored JSON is the bridge's own; an unreadable entry is shown as such rather than failing the read. */
function parseJson<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return { unreadable: text } as T;
  }
}

import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import { BridgeError } from '../domain/errors.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { RESOLVE_CONFLICT, resolveConflictKeys } from './lua/conflict-resolve.lua.js';
import type { RedisClock } from './redis-clock.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';
import { replicated } from './replica-ack.js';

/**
 * The conflict inbox (SPEC §6, Ownership): what two inputs claim, as the store's scripts record it
 * (store/lua/conflicts.lua.ts, key layout in keys.ts), listed newest first, and resolved in one
 * script (store/lua/conflict-resolve.lua.ts).
 */

export const CONFLICT_KINDS = ['same-id', 'account', 'ambiguous'] as const;
export type ConflictKind = (typeof CONFLICT_KINDS)[number];
export type ConflictStatus = 'open' | 'ignored' | 'linked' | 'withdrawn';
export type ConflictFilter = 'open' | 'ignored' | 'all';

/** Conflict ids as the scripts derive them ('c' + 20 hex digits): anything else is not looked up. */
export const CONFLICT_ID = /^c[0-9a-f]{20}$/;

export interface ConflictParty {
  /** scim, events, okta or directory:<name>; null for an identity stored before owners existed. */
  owner: string | null;
  id: string;
  /** userName or displayName, when known. */
  name: string | null;
}

export interface ConflictCandidate {
  targetId: string;
  by: string;
  name?: string;
}

export interface ConflictAccount {
  /** The platform account in question, when there is one yet. */
  targetId?: string;
  /** What matched: id (same-id), externalId, userName, displayName or listing. */
  by: string;
  /** Ambiguous: the platform accounts that fit. */
  candidates?: ConflictCandidate[];
}

export interface Conflict {
  id: string;
  kind: ConflictKind;
  identityKind: IdentityKind;
  status: ConflictStatus;
  claimant: ConflictParty;
  holder?: ConflictParty;
  account: ConflictAccount;
  /** same-id: what the claimant sent, which could not be stored. */
  desired?: DesiredUser | DesiredGroup;
  firstSeenAt: number;
  lastSeenAt: number;
  resolvedAt?: number;
  resolution?: { action: 'link' | 'ignore'; targetId?: string | null };
}

export interface ConflictPage {
  total: number;
  items: Conflict[];
  /** Position to continue from; absent at the end. */
  next?: number;
}

const resolveScript = new LuaScript(RESOLVE_CONFLICT);

const FIELDS = [
  'kind',
  'ik',
  'status',
  'claimant',
  'holder',
  'account',
  'stored',
  'first',
  'last',
  'resolvedAt',
  'resolution',
] as const;

export class ConflictStore {
  /** `clock`: the shared clock that stamps resolutions (a reader that resolves nothing needs none). */
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    readonly clock: Pick<RedisClock, 'now'> = { now: () => Date.now() },
  ) {}

  async get(id: string): Promise<Conflict | undefined> {
    if (!CONFLICT_ID.test(id)) return undefined;
    const [found] = await this.read([id]);
    return found;
  }

  /** Conflicts of a status (open by default), most recently seen first. */
  async page(filter: ConflictFilter, from: number, limit: number): Promise<ConflictPage> {
    const key = this.listKey(filter);
    const [total, ids] = await storeCall(() =>
      Promise.all([this.redis.zcard(key), this.redis.zrevrange(key, from, from + limit - 1)]),
    );
    const items = await this.read(ids);
    const next = from + ids.length;
    return { total, items, ...(next < total && ids.length > 0 ? { next } : {}) };
  }

  /** Open conflicts by kind (every kind listed, 0 for none). */
  async openCounts(): Promise<Record<ConflictKind, number>> {
    const counts = await storeCall(() => this.redis.hgetall(this.keys.conflictKinds()));
    return Object.fromEntries(
      CONFLICT_KINDS.map((kind) => [kind, Math.max(0, Number(counts[kind] ?? 0))]),
    ) as Record<ConflictKind, number>;
  }

  openCount(): Promise<number> {
    return storeCall(() => this.redis.zcard(this.keys.conflictsOpen()));
  }

  /**
   * Links (the claimant's input becomes the owner of the platform account) or ignores (the claimant
   * stays parked, no longer reported) a conflict, atomically. `targetId` names the candidate of an
   * ambiguous conflict. Throws not_found, conflict (already resolved) or invalid_input.
   */
  async resolve(id: string, action: 'link' | 'ignore', targetId?: string): Promise<Conflict> {
    const current = await this.get(id);
    if (!current) throw new BridgeError('not_found', `No conflict ${JSON.stringify(id)}`);
    const { keys, families } = resolveConflictKeys(this.keys, id, {
      kind: current.identityKind,
      id: current.claimant.id,
    });
    const letter = current.identityKind === 'user' ? 'u' : 'g';
    const args = [this.clock.now(), letter, id, current.claimant.id, action, targetId ?? '', ...families];
    // A resolution may move identities between inputs: every input's source digest is forgotten
    // first (source-digest.store.ts), so the next full sync of each reads its source again.
    const [, raw] = await storeCall(() =>
      Promise.all([this.redis.del(this.keys.sourceDigests()), resolveScript.run(this.redis, keys, args)]),
    );
    const reply = JSON.parse(raw as string) as { status?: string; error?: string };
    if (reply.error) throw resolveError(id, reply.error, current);
    await replicated(this.redis);
    const resolved = await this.get(id);
    if (!resolved) throw new BridgeError('not_found', `No conflict ${JSON.stringify(id)}`);
    return resolved;
  }

  private listKey(filter: ConflictFilter): string {
    if (filter === 'ignored') return this.keys.conflictsIgnored();
    return filter === 'all' ? this.keys.conflictsAll() : this.keys.conflictsOpen();
  }

  private async read(ids: readonly string[]): Promise<Conflict[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.conflict(id), ...FIELDS);
    const replies = await execPipeline(pipeline);
    return ids.flatMap((id, n) => {
      const conflict = parseConflict(id, replies[n] as (string | null)[] | undefined);
      return conflict ? [conflict] : [];
    });
  }
}

function parseConflict(id: string, fields: (string | null)[] | undefined): Conflict | undefined {
  const [kind, ik, status, claimant, holder, account, stored, first, last, resolvedAt, resolution] =
    fields ?? [];
  if (!kind || !claimant || (ik !== 'user' && ik !== 'group')) return undefined;
  const party = json<ConflictParty>(claimant);
  if (!party) return undefined;
  const desired = stored ? storedDesired(ik, party.id, stored) : undefined;
  const holderParty = holder ? json<ConflictParty>(holder) : undefined;
  const resolutionValue = resolution ? json<Conflict['resolution']>(resolution) : undefined;
  return {
    id,
    kind: kind as ConflictKind,
    identityKind: ik,
    status: (status ?? 'open') as ConflictStatus,
    claimant: party,
    ...(holderParty ? { holder: holderParty } : {}),
    account: (account ? json<ConflictAccount>(account) : undefined) ?? { by: 'unknown' },
    ...(desired ? { desired } : {}),
    firstSeenAt: Number(first ?? last ?? 0),
    lastSeenAt: Number(last ?? 0),
    ...(resolvedAt ? { resolvedAt: Number(resolvedAt) } : {}),
    ...(resolutionValue ? { resolution: resolutionValue } : {}),
  };
}

/** The doc a same-id claimant sent (its members too, for a group). */
function storedDesired(
  kind: IdentityKind,
  id: string,
  stored: string,
): DesiredUser | DesiredGroup | undefined {
  const value = json<{ doc?: string; members?: string[] | Record<string, never> }>(stored);
  if (!value?.doc) return undefined;
  try {
    if (kind === 'user') return parseStoredUser(id, value.doc);
    const members = Array.isArray(value.members) ? value.members : [];
    return parseStoredGroup(id, value.doc, [...members].sort());
  } catch {
    return undefined;
  }
}

/** Stored JSON is the bridge's own: an unreadable value is left out rather than failing the read. */
function json<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function resolveError(id: string, error: string, conflict: Conflict): BridgeError {
  switch (error) {
    case 'not_found':
      return new BridgeError('not_found', `No conflict ${JSON.stringify(id)}`);
    case 'resolved':
      return new BridgeError('conflict', `Conflict ${id} is already resolved (${conflict.status})`);
    case 'gone':
      return new BridgeError('conflict', `The claimant of conflict ${id} is no longer in the desired state`);
    case 'target_required':
      return new BridgeError('invalid_input', `Conflict ${id} is ambiguous: name the candidate in targetId`, {
        problems: [`targetId: one of ${candidates(conflict)}`],
      });
    default:
      return new BridgeError('invalid_input', `targetId is not a candidate of conflict ${id}`, {
        problems: [`targetId: one of ${candidates(conflict)}`],
      });
  }
}

function candidates(conflict: Conflict): string {
  return (conflict.account.candidates ?? []).map((c) => c.targetId).join(', ') || 'none';
}

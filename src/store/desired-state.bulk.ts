import type { IdentityKind } from '../domain/identity.js';
import type { Known } from '../domain/sync-plan.js';
import { familyArgs, type Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import {
  HELD_ELSEWHERE,
  MEMBER_TARGETS,
  NOT_IN_SOURCE,
  READ_CHUNK,
  readChunkKeys,
} from './lua/desired-state-bulk.lua.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { inSlices } from './script-slices.js';

const scripts = {
  read: new LuaScript(READ_CHUNK),
  members: new LuaScript(MEMBER_TARGETS),
  notInSource: new LuaScript(NOT_IN_SOURCE),
  heldElsewhere: new LuaScript(HELD_ELSEWHERE),
};

/** Ids read per call when walking a set or the desired identities. */
export const WALK_BATCH = 1000;

/** One identity of a chunk, as a full sync's plan reads it. */
export interface ChunkIdentity {
  id: string;
  /** The canonical JSON of its desired state; absent when not desired. */
  json?: string;
  /** Member ids (groups). */
  members?: string[];
  /** The sync's source changes it: its desired state is the staged one (src:K:docs). */
  staged: boolean;
  /** A desired state is stored for it (before this sync writes). */
  stored: boolean;
  /** The input that owns it (none: stored before owners existed, or not stored). */
  owner?: string;
  known: Known;
}

/**
 * Reads a chunk of identities for the plan: the desired state staged by the sync (`stagedDocs`,
 * its src:K:docs) or else the stored one, and what the bridge knows of each on the target.
 */
export async function readChunk(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  stagedDocs: string,
  ids: readonly string[],
): Promise<ChunkIdentity[]> {
  // About 7 reads an identity; a group's members come with it.
  const weight = kind === 'group' ? 30 : 8;
  return inSlices(
    ids,
    () => weight,
    (slice) => readChunkSlice(redis, keys, kind, stagedDocs, slice),
  );
}

async function readChunkSlice(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  stagedDocs: string,
  ids: readonly string[],
): Promise<ChunkIdentity[]> {
  const per = kind === 'group' ? 3 : 2;
  const reply = (await storeCall(() =>
    scripts.read.run(redis, readChunkKeys(keys, kind, stagedDocs, ids), [per, ...ids]),
  )) as string[];
  return ids.map((id, n) => {
    const [doc = '', t, m, pc, joined = '', stored, owner] = reply.slice(n * 7, n * 7 + 7);
    const known: Known = {
      managed: m === '1',
      ...(t ? { targetId: t } : {}),
      ...(pc ? { pendingCreate: pc } : {}),
    };
    const owned = owner ? { owner } : {};
    if (doc === '') return { id, known, staged: false, stored: false, ...owned };
    const flag = doc.charAt(0);
    let json = doc.slice(1);
    let members = kind === 'group' ? split(joined) : undefined;
    if (flag !== 's' && kind === 'group') {
      const cut = json.indexOf('\n');
      members = cut === -1 ? [] : split(json.slice(cut + 1));
      json = cut === -1 ? json : json.slice(0, cut);
    }
    const staged = flag === 't';
    return { id, json, ...(members ? { members } : {}), staged, stored: stored === '1', ...owned, known };
  });
}

/**
 * For each identity of a chunk (its id, lower-cased name and given externalId), whether the store
 * would not apply it as `scope`'s write (HELD_ELSEWHERE): 'parked', 'ambiguous' (parked by its own
 * ambiguous conflict), the owner of another input's identity that holds its name or externalId, or
 * undefined.
 */
export async function heldElsewhere(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  scope: string | undefined,
  items: readonly { id: string; name: string; externalId?: string | undefined }[],
): Promise<(string | undefined)[]> {
  // About 5 look-ups an identity.
  return inSlices(
    items,
    () => 5,
    (slice) => heldElsewhereSlice(redis, keys, kind, scope, slice),
  );
}

async function heldElsewhereSlice(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  scope: string | undefined,
  items: readonly { id: string; name: string; externalId?: string | undefined }[],
): Promise<(string | undefined)[]> {
  const args = [
    scope ?? '',
    ...familyArgs(keys.identityFamily(kind)),
    ...familyArgs(keys.conflictFamily()),
    ...items.flatMap((item) => [item.id, item.name, item.externalId ?? '']),
  ];
  const indexes = [keys.nameIndex(kind), keys.externalIdIndex(kind)];
  const reply = (await storeCall(() => scripts.heldElsewhere.run(redis, indexes, args))) as string[];
  return reply.map((held) => PARKED.get(held) ?? (held === '' ? undefined : held));
}

/** HELD_ELSEWHERE's marks of parked identities. */
const PARKED: ReadonlyMap<string, string> = new Map([
  ['!', 'parked'],
  ['?', 'ambiguous'],
]);

/** Where a sync's source ids are: its staging (src:u:ids, a hash) or, without a source, P:u:all. */
export interface SourceIds {
  key: string;
  mode: 'h' | 'z';
}

/** The listing's clean users (ls:u:clean), and whether it claimed their accounts as their matches. */
export interface CleanClaims {
  key: string;
  claimed: boolean;
}

/**
 * The target ids of group members as the plan compares them (MEMBER_TARGETS): undefined when the
 * member is left out (neither a user of the source nor another input's), '' when it has none yet,
 * else its target id — this plan's match first (`plan`). `scope`: the owner the sync writes as.
 */
export async function memberTargets(
  redis: RedisClient,
  keys: Keys,
  source: { users: SourceIds; scope?: string | undefined },
  plan: { matched: string; clean: CleanClaims },
  members: readonly string[],
): Promise<(string | undefined)[]> {
  const { users } = source;
  const claimed = plan.clean.claimed ? '1' : '';
  const head = [users.mode, ...familyArgs(keys.identityFamily('user')), source.scope ?? '', claimed];
  const scriptKeys = [users.key, plan.matched, keys.all('user'), plan.clean.key];
  // A look-up at most a member, the rest one command a slice (bulk.lua.ts).
  const reply = await inSlices(
    members,
    () => 3,
    (slice) =>
      storeCall(() => scripts.members.run(redis, scriptKeys, [...head, ...slice])) as Promise<string[]>,
  );
  return reply.map((value) => (value === '-' ? undefined : value));
}

/** A stored identity its sync's source no longer lists. */
export interface NotInSource {
  id: string;
  desired: boolean;
  known: Known;
}

export type WalkPhase = 'all' | 'managed' | 'creating';

/**
 * Of a walk's batch, the identities neither in the source nor seen by an earlier phase, nor owned
 * by another input than `walk.scope` (the owner the sync writes as; absent: any).
 */
export async function notInSource(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  source: SourceIds,
  walk: { phase: WalkPhase; ids: readonly string[]; removals: string; scope?: string | undefined },
): Promise<NotInSource[]> {
  // About 4 reads an identity.
  return inSlices(
    walk.ids,
    () => 4,
    (ids) => notInSourceSlice(redis, keys, kind, source, { ...walk, ids }),
  );
}

async function notInSourceSlice(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  source: SourceIds,
  walk: { phase: WalkPhase; ids: readonly string[]; removals: string; scope?: string | undefined },
): Promise<NotInSource[]> {
  const { phase, ids } = walk;
  const keyList = [
    source.key,
    keys.all(kind),
    keys.managed(kind),
    walk.removals,
    ...ids.flatMap((id) => [keys.identity(kind, id), keys.doc(kind, id)]),
  ];
  const reply = (await storeCall(() =>
    scripts.notInSource.run(redis, keyList, [source.mode, phase, `${kind}:`, walk.scope ?? '', ...ids]),
  )) as string[];
  const out: NotInSource[] = [];
  for (let i = 0; i < reply.length; i += 5) {
    const [id = '', desired, t, m, pc] = reply.slice(i, i + 5);
    const known: Known = {
      managed: m === '1',
      ...(t ? { targetId: t } : {}),
      ...(pc ? { pendingCreate: pc } : {}),
    };
    out.push({ id, desired: desired === '1', known });
  }
  return out;
}

/**
 * The stored identities a full sync's source replaces, in batches: every desired identity of its
 * owner (`owner`; absent: of every input), in the order first seen, then the managed and the
 * half-created ones that are no longer desired (notInSource leaves out other inputs' ones). This
 * is the one place that says which stored identities belong to a sync's source.
 */
export async function* sourceIdentities(
  redis: RedisClient,
  keys: Keys,
  kind: IdentityKind,
  walk: { phases?: ReadonlySet<WalkPhase>; owner?: string | undefined } = {},
): AsyncGenerator<{ phase: WalkPhase; ids: string[] }> {
  const phases = walk.phases ?? new Set<WalkPhase>(['all', 'managed', 'creating']);
  const desired = walk.owner === undefined ? keys.all(kind) : keys.owned(kind, walk.owner);
  if (phases.has('all')) for await (const ids of desiredIds(redis, desired)) yield { phase: 'all', ids };
  for (const [phase, key] of [
    ['managed', keys.managed(kind)],
    ['creating', keys.creating(kind)],
  ] as const) {
    if (!phases.has(phase)) continue;
    let cursor = '0';
    do {
      const [next, ids] = await storeCall(() => redis.sscan(key, cursor, 'COUNT', WALK_BATCH));
      cursor = next;
      if (ids.length > 0) yield { phase, ids };
    } while (cursor !== '0');
  }
}

/**
 * Desired identities in the order first seen, a batch at a time: of a kind (P:K:all) or of one
 * input (P:K:own:<owner>, scored alike).
 */
export async function* desiredIds(redis: RedisClient, key: string): AsyncGenerator<string[]> {
  let after = '-inf';
  for (;;) {
    const page = await storeCall(() =>
      redis.zrangebyscore(key, after, '+inf', 'WITHSCORES', 'LIMIT', 0, WALK_BATCH),
    );
    if (page.length === 0) return;
    const ids = page.filter((_, i) => i % 2 === 0);
    after = `(${page[page.length - 1] ?? '+inf'}`;
    yield ids;
    if (ids.length < WALK_BATCH) return;
  }
}

function split(joined: string): string[] {
  return joined === '' ? [] : joined.split('\n').sort();
}

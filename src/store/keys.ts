import type { IdentityKind } from '../domain/identity.js';

/**
 * Every Redis key of the bridge is built here. All keys start with the hash-tagged prefix, so one
 * bridge's keys share a Cluster slot and Lua scripts may touch any of them.
 *
 * Layout (P = prefix, K = u for users, g for groups):
 * Source ids are arbitrary strings, so an id is always the last part of a key, after a fixed part
 * of its own: no id can make one key collide with another.
 *
 *   P:K:i:<id>          hash   small fields only, so Redis keeps it compact (listpack):
 *                              t = target id, m = "1" when managed (created or adopted),
 *                              cr / ts = first seen / last change (ms), v = version (changes count),
 *                              la / lt = last applied / last attempt (ms), lr = last result,
 *                              le = last error JSON, ev = newest source event applied (ms),
 *                              pc = externalId of a create sent whose outcome is unknown,
 *                              ix = index entries JSON, only for non-ASCII names (domain/canonical.ts)
 *   P:K:d:<id>          string the desired state (compact JSON, domain/canonical.ts); absent: not desired
 *   P:K:x:<id>          string attributes kept for the SCIM server, not managed on the target
 *   P:K:h:<id>          list   capped history, newest first (JSON entries)
 *   P:g:mem:<id>        set    member user ids of a group
 *   P:u:memberof        zset   "<user id>\n<group id>", score 0: the groups of a user (lexicographic)
 *   P:K:all             zset   every desired identity id, scored by first-seen sequence (stable order)
 *   P:K:seq             string sequence for the above
 *   P:u:name            hash   lower-cased userName → id
 *   P:g:name            hash   lower-cased displayName → id
 *   P:K:ext             hash   externalId → id
 *   P:u:email           zset   "<lower-cased e-mail>\n<id>", score 0 (lexicographic index); an e-mail
 *                              equal to the userName is found through P:u:name instead
 *   P:K:managed         set    ids the bridge manages on the target
 *   P:K:tid             hash   target id → id
 *   P:K:creating        set    ids with a create of unknown outcome (pc), so deletion finds them
 *   P:dirty             zset   "user:<id>" / "group:<id>" → time of the newest unreconciled change (ms,
 *                              raised by at least 1 ms per change, so it only grows); the workers'
 *                              feeder turns new marks into reconcile jobs
 *   P:dirty:sync        zset   the same, for changes a running full sync enqueues itself (in order:
 *                              users, then groups); only the sweep looks at these, if the sync dies
 *   P:failures          zset   "user:<id>" / "group:<id>" → time of the permanent failure (ms)
 *   P:target:gate       hash   shared target gate: pause-until (ms), GCRA theoretical arrival time
 *   P:target:health     hash   state, since, detail of the target as the workers see it
 *   P:sync:<syncId>     hash   one full reconciliation's record (state, progress, plan, summary)
 *   P:sync:<syncId>:pending  zset  identity keys the sync is waiting on → time enqueued
 *   P:sync:<syncId>:held     string a held sync's record (JSON): its source and user count, the ids
 *                              whose removal awaits approval; kept until the sync ends
 *   P:sync:<syncId>:snapshot string the snapshot a sync was started with (JSON, 24 h), or that a held
 *                              sync read from its directory source; kept until it ends once held
 *   P:sync:active       string id of the running (or held) full reconciliation
 *   P:sync:runs         zset   sync ids by start time (history)
 *   P:events:<source>:<id>  string  seen webhook event ids (24 h)
 *   P:session:<digest>  string  a queue-board session (the SHA-256 of its cookie → the admin token's
 *                              HMAC it was opened with), expiring with the session
 *   P:q                 prefix of the BullMQ queues
 *
 * Lua scripts never build a key: the caller builds every key a script touches here and hands it in
 * as KEYS (LuaScript.run), each script documenting the order it expects. A script that only learns
 * an id while it runs (the groups of a deleted user, found in P:u:memberof; the active sync, read
 * from P:sync:active) receives that family of keys as a KeyFamily instead — two ARGV entries, stem
 * and suffix — and forms the key as stem .. id .. suffix. Such keys share the prefix's hash tag,
 * hence the Cluster slot of the declared KEYS.
 */

/** Keys that differ only by an id: stem + id + suffix. */
export interface KeyFamily {
  readonly stem: string;
  readonly suffix: string;
}

export function familyKey(family: KeyFamily, id: string): string {
  return family.stem + id + family.suffix;
}

/** A family as the two ARGV entries a script reads it from. */
export function familyArgs(family: KeyFamily): [string, string] {
  return [family.stem, family.suffix];
}

export interface Keys {
  readonly prefix: string;
  identity(kind: IdentityKind, id: string): string;
  doc(kind: IdentityKind, id: string): string;
  extra(kind: IdentityKind, id: string): string;
  history(kind: IdentityKind, id: string): string;
  members(groupId: string): string;
  /** members(id) for every id: for a script that finds group ids while running. */
  membersFamily(): KeyFamily;
  memberOf(): string;
  creating(kind: IdentityKind): string;
  all(kind: IdentityKind): string;
  sequence(kind: IdentityKind): string;
  nameIndex(kind: IdentityKind): string;
  externalIdIndex(kind: IdentityKind): string;
  emailIndex(): string;
  managed(kind: IdentityKind): string;
  targetIdIndex(kind: IdentityKind): string;
  dirty(): string;
  dirtyForSync(): string;
  failures(): string;
  targetGate(): string;
  targetHealth(): string;
  sync(syncId: string): string;
  syncPending(syncId: string): string;
  syncHeld(syncId: string): string;
  syncSnapshot(syncId: string): string;
  /** sync(id) and syncPending(id) for every id: for a script that reads the active sync's id. */
  syncFamily(): KeyFamily;
  syncPendingFamily(): KeyFamily;
  syncActive(): string;
  syncRuns(): string;
  seenEvent(source: string, eventId: string): string;
  adminSession(digest: string): string;
  queuePrefix(): string;
}

const letter = (kind: IdentityKind) => (kind === 'user' ? 'u' : 'g');

export function createKeys(prefix: string): Keys {
  const p = prefix;
  const families = {
    members: { stem: `${p}:g:mem:`, suffix: '' },
    sync: { stem: `${p}:sync:`, suffix: '' },
    syncPending: { stem: `${p}:sync:`, suffix: ':pending' },
  } satisfies Record<string, KeyFamily>;
  return {
    prefix: p,
    identity: (kind, id) => `${p}:${letter(kind)}:i:${id}`,
    doc: (kind, id) => `${p}:${letter(kind)}:d:${id}`,
    extra: (kind, id) => `${p}:${letter(kind)}:x:${id}`,
    history: (kind, id) => `${p}:${letter(kind)}:h:${id}`,
    members: (groupId) => familyKey(families.members, groupId),
    membersFamily: () => families.members,
    memberOf: () => `${p}:u:memberof`,
    creating: (kind) => `${p}:${letter(kind)}:creating`,
    all: (kind) => `${p}:${letter(kind)}:all`,
    sequence: (kind) => `${p}:${letter(kind)}:seq`,
    nameIndex: (kind) => `${p}:${letter(kind)}:name`,
    externalIdIndex: (kind) => `${p}:${letter(kind)}:ext`,
    emailIndex: () => `${p}:u:email`,
    managed: (kind) => `${p}:${letter(kind)}:managed`,
    targetIdIndex: (kind) => `${p}:${letter(kind)}:tid`,
    dirty: () => `${p}:dirty`,
    dirtyForSync: () => `${p}:dirty:sync`,
    failures: () => `${p}:failures`,
    targetGate: () => `${p}:target:gate`,
    targetHealth: () => `${p}:target:health`,
    sync: (syncId) => familyKey(families.sync, syncId),
    syncPending: (syncId) => familyKey(families.syncPending, syncId),
    syncHeld: (syncId) => `${p}:sync:${syncId}:held`,
    syncSnapshot: (syncId) => `${p}:sync:${syncId}:snapshot`,
    syncFamily: () => families.sync,
    syncPendingFamily: () => families.syncPending,
    syncActive: () => `${p}:sync:active`,
    syncRuns: () => `${p}:sync:runs`,
    seenEvent: (source, eventId) => `${p}:events:${source}:${eventId}`,
    adminSession: (digest) => `${p}:session:${digest}`,
    queuePrefix: () => `${p}:q`,
  };
}

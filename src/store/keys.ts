import type { IdentityKind } from '../domain/identity.js';
import type { SyncWorkPart } from './sync-work-parts.js';

export { SCRATCH_TABLES, syncWorkParts, type ScratchTable, type SyncWorkPart } from './sync-work-parts.js';

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
 *                              o = owner (scim, events, okta, directory:<name>; domain/desired-change.ts),
 *                              pk = id of the conflict that parks it (not reconciled while set)
 *                              dg = SHA-1 of its desired state and its account's compact form, as
 *                              a full sync found them matching: a later sync that finds both the
 *                              same (and a group's members resolving to the account's) need not
 *                              plan it (sync-listing.lua.ts, sync-clean.lua.ts)
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
 *   P:K:pname           hash   "<owner>\n<lower-cased name>" → id, for parked identities (their names
 *                              stay out of P:K:name, which the holder keeps)
 *   P:K:pext            hash   "<owner>\n<externalId>" → id, the same for externalIds
 *   P:K:own:<owner>     zset   the desired identities an input owns, scored as in P:K:all
 *   P:owners            set    every owner that ever wrote an identity
 *   P:u:email           zset   "<lower-cased e-mail>\n<id>", score 0 (lexicographic index); an e-mail
 *                              equal to the userName is found through P:u:name instead
 *   P:K:managed         set    ids the bridge manages on the target
 *   P:K:tid             hash   target id → id
 *   P:K:creating        set    ids with a create of unknown outcome (pc), so deletion finds them
 *   P:dirty             zset   "user:<id>" / "group:<id>" → time of the newest unreconciled change (ms,
 *                              raised by at least 1 ms per change, so it only grows); the workers'
 *                              feeder turns new marks into reconcile jobs
 *   P:dirty:wake        list   at most one token: a batch just wrote marks to P:dirty; the feeders
 *                              block on it (BLPOP) and feed at once; a hint only, the marks are the truth
 *   P:dirty:sync        zset   the same, for changes a running full sync enqueues itself (in order:
 *                              users, then groups); only the sweep looks at these, if the sync dies
 *   P:failures          zset   "user:<id>" / "group:<id>" → time of the permanent failure (ms)
 *   P:conflict:<cid>    hash   one conflict between inputs (store/lua/conflicts.lua.ts): kind, ik (identity
 *                              kind), claimant / holder / account JSON, first, last, status, resolution
 *   P:conflicts         zset   open conflict ids → last seen (ms); P:conflicts:ignored the ignored ones,
 *                              P:conflicts:all every one; P:conflicts:kinds hash kind → open count
 *   P:migrations:owners string set once every identity has an owner (store/owner-migration.ts; run at start-up by wiring/migrate-owners.ts)
 *   P:target:gate       hash   shared target gate: pause-until (ms), GCRA theoretical arrival time
 *   P:target:health     hash   state, since, detail of the target as the workers see it
 *   P:sync:<syncId>     hash   one full reconciliation's record (state, progress, plan, summary)
 *   P:sync:<syncId>:pending  zset  identity keys the sync is waiting on → time enqueued
 *   P:sync:<syncId>:held     string a held sync's record (JSON): its source and user count, the
 *                              counts of removals awaiting approval; kept until the sync ends
 *   P:sync:<syncId>:<part>   a full sync's work, deleted when it ends (SyncWorkPart; K = u or g):
 *     src:K:ids      hash   what it read of its source (a pushed snapshot, a directory): every id
 *                           → "<1 if the item gave its own externalId, else 0><item ref>" (the ref:
 *                           its position, or JSON [position, label, line]; sync/source-stager.ts)
 *     src:K:names    hash   lower-cased userName / displayName → item ref (duplicates refused)
 *     src:K:ext      hash   externalId an item gives itself → item ref
 *     src:K:order    list   the ids in the source's order (the plan walks it)
 *     src:K:docs     hash   id → the identity's canonical JSON (groups: + "\n" + its member ids,
 *                           "\n"-joined), only for identities whose desired state the source changes
 *                           — all of them when the desired state is empty
 *     src:members    list   group members not yet known as users when read, checked at the end
 *     src:scratch:T  hash   a source's table while it reads (T = userdn: an LDAP DN's key → user id)
 *     ls:K:r         hash   the platform's listing: target id → flags (claimed by a match; a managed
 *                           identity's) + the resource's compact form (domain/observed-form.ts)
 *     ls:K:x, ls:K:n hash   externalId, lower-cased userName / displayName → target id (not the
 *                           account the listing claimed for a clean user: none other may match it)
 *     ls:u:clean     hash   managed users whose listed account is as the last sync that found it
 *                           matching saw it (their hash's dg) → that account's target id: the
 *                           plan counts them unchanged
 *     plan:K         list   planned changes (JSON, with what the listing showed), applied in order
 *     planned:K      set    staged ids with a planned change (the others are written without a
 *                           dirty mark: the platform already matches them)
 *     gone:K         set    ids the source no longer lists: deleted from the desired state
 *     adopt          list   "<kind>\n<id>\n<target id>" matches recorded as managed when applied
 *     clean:written  list   JSON [id, dg, kind]: identities the plan found matching whose desired
 *                           state the run writes (staged: a first sync's, a changed source's) —
 *                           their dg is written once it is
 *     matched        hash   user id → the target id the plan matched, where it differs from the one
 *                           recorded ('' none: to be created); group members are compared through it
 *     park           list   "<kind>\n<id>\n<conflict JSON>": identities parked once written (their
 *                           account is another input's; a link-only run's ambiguous matches)
 *     removals       set    "user:<id>" / "group:<id>" whose removal the run holds (kept while held)
 *     delta          string a held delta's changes and the watermark after them (JSON), until it ends
 *                    The src: parts are what the sync kept of its source, so they stay while it is
 *                    held (approval plans again from them); a pushed snapshot's expire after 24 h
 *                    unless held.
 *   P:sync:active       hash   sync slot → id of the running (or held) full reconciliation in it:
 *                              one slot per input (its owner name; a sync of the desired state as
 *                              it is takes the first directory's), so that inputs never wait for
 *                              each other
 *   P:sync:runs         zset   sync ids by start time (history)
 *   P:events:<source>:<id>  string  seen webhook event ids (24 h)
 *   P:input:wm:<owner>      string  an input's change-read watermark (JSON: kind, value, origin)
 *   P:input:digests     hash    owner → the digest of its source's last read a full sync applied
 *                              (store/source-digest.store.ts); any other write of the owner's
 *                              identities deletes its field, a conflict resolved the whole hash
 *   P:input:fresh:<owner>   hash    an input's freshness: last read of its source (readAt, readKind),
 *                              newest change applied (changeAt), failures in a row, last error, missed
 *   P:input:removals:<owner> zset   "<run id>\n<count>" → time (ms): users its deltas removed, 24 h
 *   P:input:graph:<owner>   hash    group id → its direct members as its source last stated them
 *                              (JSON {u: user ids, g: group ids}): what a change read of a source
 *                              with nested groups flattens from (group-edges.store.ts)
 *   P:input:graph-up:<owner> hash   group id → the groups holding it as a direct member (JSON list)
 *   P:input:lookup:<owner>  hash    a source's own key → value table between reads (e.g. Google's
 *                              addresses → ids), replaced by a full read (source-lookup.store.ts)
 *   P:session:<digest>  string  a queue-board session (the SHA-256 of its cookie → the admin token's
 *                              HMAC it was opened with), expiring with the session
 *   P:q                 prefix of the BullMQ queues
 *
 * Lua scripts never build a key: the caller builds every key a script touches here and hands it in
 * as KEYS (LuaScript.run), each script documenting the order it expects. A script that only learns
 * an id while it runs (the groups of a deleted user, found in P:u:memberof; the active syncs, read
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

/** The keys of owners, parked identities and conflicts (SPEC §6, Ownership). */
export interface OwnershipKeys {
  parkedNameIndex(kind: IdentityKind): string;
  parkedExternalIdIndex(kind: IdentityKind): string;
  owned(kind: IdentityKind, owner: string): string;
  /** owned(kind, owner) for every owner; identity, doc and history (kind, id) for every id. */
  ownedFamily(kind: IdentityKind): KeyFamily;
  identityFamily(kind: IdentityKind): KeyFamily;
  docFamily(kind: IdentityKind): KeyFamily;
  historyFamily(kind: IdentityKind): KeyFamily;
  owners(): string;
  conflict(conflictId: string): string;
  conflictFamily(): KeyFamily;
  conflictsOpen(): string;
  conflictsIgnored(): string;
  conflictsAll(): string;
  conflictKinds(): string;
  ownersMigration(): string;
}

export interface Keys extends OwnershipKeys {
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
  dirtyWake(): string;
  failures(): string;
  platformGate(): string;
  platformHealth(): string;
  sync(syncId: string): string;
  syncPending(syncId: string): string;
  syncHeld(syncId: string): string;
  /** One part of a full sync's work (see the layout above). */
  syncWork(syncId: string, part: SyncWorkPart): string;
  /** sync(id) and syncPending(id) for every id: for a script that reads the active sync's id. */
  syncFamily(): KeyFamily;
  syncPendingFamily(): KeyFamily;
  syncActive(): string;
  syncRuns(): string;
  seenEvent(source: string, eventId: string): string;
  inputWatermark(owner: string): string;
  sourceDigests(): string;
  inputFreshness(owner: string): string;
  inputRemovals(owner: string): string;
  inputGraph(owner: string, part: 'down' | 'up', next?: boolean): string;
  inputLookup(owner: string, next?: boolean): string;
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
  const { identity, doc, history } = kindFamilies(p);
  return {
    ...ownershipKeys(p),
    prefix: p,
    identity: (kind, id) => familyKey(identity[kind], id),
    doc: (kind, id) => familyKey(doc[kind], id),
    extra: (kind, id) => `${p}:${letter(kind)}:x:${id}`,
    history: (kind, id) => familyKey(history[kind], id),
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
    dirtyWake: () => `${p}:dirty:wake`,
    failures: () => `${p}:failures`,
    platformGate: () => `${p}:target:gate`,
    platformHealth: () => `${p}:target:health`,
    sync: (syncId) => familyKey(families.sync, syncId),
    syncPending: (syncId) => familyKey(families.syncPending, syncId),
    syncHeld: (syncId) => `${p}:sync:${syncId}:held`,
    syncWork: (syncId, part) => `${p}:sync:${syncId}:${part}`,
    syncFamily: () => families.sync,
    syncPendingFamily: () => families.syncPending,
    syncActive: () => `${p}:sync:active`,
    syncRuns: () => `${p}:sync:runs`,
    seenEvent: (source, eventId) => `${p}:events:${source}:${eventId}`,
    inputWatermark: (owner) => `${p}:input:wm:${owner}`,
    sourceDigests: () => `${p}:input:digests`,
    inputFreshness: (owner) => `${p}:input:fresh:${owner}`,
    inputRemovals: (owner) => `${p}:input:removals:${owner}`,
    inputGraph: (owner, part, next) =>
      `${p}:input:${part === 'down' ? 'graph' : 'graph-up'}:${owner}${next === true ? ':next' : ''}`,
    inputLookup: (owner, next) => `${p}:input:lookup:${owner}${next === true ? ':next' : ''}`,
    adminSession: (digest) => `${p}:session:${digest}`,
    queuePrefix: () => `${p}:q`,
  };
}

/** Families of an identity's own keys, per kind: a script that learns an id reaches them. */
function kindFamilies(p: string) {
  const perKind = (part: string): Record<IdentityKind, KeyFamily> => ({
    user: { stem: `${p}:u:${part}:`, suffix: '' },
    group: { stem: `${p}:g:${part}:`, suffix: '' },
  });
  return { identity: perKind('i'), doc: perKind('d'), history: perKind('h'), owned: perKind('own') };
}

function ownershipKeys(p: string): OwnershipKeys {
  const { identity, doc, history, owned } = kindFamilies(p);
  const conflict: KeyFamily = { stem: `${p}:conflict:`, suffix: '' };
  return {
    parkedNameIndex: (kind) => `${p}:${letter(kind)}:pname`,
    parkedExternalIdIndex: (kind) => `${p}:${letter(kind)}:pext`,
    owned: (kind, owner) => familyKey(owned[kind], owner),
    ownedFamily: (kind) => owned[kind],
    identityFamily: (kind) => identity[kind],
    docFamily: (kind) => doc[kind],
    historyFamily: (kind) => history[kind],
    owners: () => `${p}:owners`,
    conflict: (conflictId) => familyKey(conflict, conflictId),
    conflictFamily: () => conflict,
    conflictsOpen: () => `${p}:conflicts`,
    conflictsIgnored: () => `${p}:conflicts:ignored`,
    conflictsAll: () => `${p}:conflicts:all`,
    conflictKinds: () => `${p}:conflicts:kinds`,
    ownersMigration: () => `${p}:migrations:owners`,
  };
}

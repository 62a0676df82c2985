/**
 * What the rules across a snapshot's items (snapshot-validator.ts) remember of the items seen so
 * far: each id, each lower-cased userName / displayName and each externalId given, with the item
 * that had it first. A large snapshot keeps this outside the process (store/sync-staging.store.ts
 * keeps it in Redis, per sync); MemoryLedger keeps it in maps, for snapshots read whole.
 */

export type SnapshotKind = 'users' | 'groups';

/** How problems name an item: by position, or by what the operator can look up (a DN, a line). */
export interface ItemRef {
  index: number;
  /** A DN or an upstream id: problems then read `users["uid=ada,…"]` instead of `users[7]`. */
  label?: string;
  /** The NDJSON line the item came on. */
  line?: number;
}

/** One item's keys for the rules across items; absent keys are those the item lacks or has blank. */
export interface LedgerEntry {
  ref: ItemRef;
  id?: string;
  /** The userName / displayName, lower-cased (unique regardless of case). */
  name?: string;
  /** The externalId the item gives itself, if any (otherwise its id is its externalId on the target). */
  externalId?: string;
}

/** The earlier items an entry clashes with. */
export interface LedgerAnswer {
  id?: ItemRef;
  name?: ItemRef;
  /** An earlier item that would have the same externalId on the target, one of them giving it. */
  target?: ItemRef;
}

/** A group member to check against the snapshot's users once they are all in. */
export interface MemberCheck {
  group: ItemRef;
  position: number;
  member: string;
}

export interface SnapshotLedger {
  /** Records the entries in order and answers, for each, the earlier items it clashes with. */
  record(kind: SnapshotKind, entries: readonly LedgerEntry[]): Promise<LedgerAnswer[]>;
  /** Whether each user id was recorded. */
  hasUsers(ids: readonly string[]): Promise<boolean[]>;
  /** Members not (yet) known as users: checked again at the end, in the order deferred. */
  defer(checks: readonly MemberCheck[]): Promise<void>;
  deferred(batchSize: number): AsyncIterable<MemberCheck[]>;
  /**
   * Of these user ids, which are users the bridge holds for another input (SCIM push, events, Okta
   * hooks): a group of the snapshot may name them as members (SPEC §6, Ownership). A ledger that
   * cannot tell (a snapshot checked on its own) omits it.
   */
  heldElsewhere?(ids: readonly string[]): Promise<boolean[]>;
}

export interface Seen {
  ref: ItemRef;
  /** The item gave its own externalId, so its id is not its externalId on the target. */
  gaveExternalId: boolean;
}

/**
 * The target rule (SPEC §5.4): two items whose externalId on the target would be equal — the
 * externalId given, or else the id — would adopt the same target identity. Pairs where neither
 * gives one are duplicate ids, reported as such. `byId` finds an earlier item by id, `byGiven` an
 * earlier item that gave this externalId; the earlier of the two wins.
 */
export function targetClash(
  entry: LedgerEntry,
  byId: (id: string) => Seen | undefined,
  byGiven: (externalId: string) => ItemRef | undefined,
): ItemRef | undefined {
  if (entry.externalId === undefined) return entry.id === undefined ? undefined : byGiven(entry.id);
  const given = byGiven(entry.externalId);
  const withId = byId(entry.externalId);
  const plain =
    withId && !withId.gaveExternalId && withId.ref.index !== entry.ref.index ? withId.ref : undefined;
  if (given && plain) return given.index <= plain.index ? given : plain;
  return given ?? plain;
}

/** The ledger of a snapshot held in memory (a request body, a directory read whole). */
export class MemoryLedger implements SnapshotLedger {
  private readonly ids = { users: new Map<string, Seen>(), groups: new Map<string, Seen>() };
  private readonly names = { users: new Map<string, ItemRef>(), groups: new Map<string, ItemRef>() };
  private readonly given = { users: new Map<string, ItemRef>(), groups: new Map<string, ItemRef>() };
  private readonly checks: MemberCheck[] = [];

  record(kind: SnapshotKind, entries: readonly LedgerEntry[]): Promise<LedgerAnswer[]> {
    return Promise.resolve(entries.map((entry) => this.recordOne(kind, entry)));
  }

  hasUsers(ids: readonly string[]): Promise<boolean[]> {
    return Promise.resolve(ids.map((id) => this.ids.users.has(id)));
  }

  defer(checks: readonly MemberCheck[]): Promise<void> {
    this.checks.push(...checks);
    return Promise.resolve();
  }

  async *deferred(batchSize: number): AsyncIterable<MemberCheck[]> {
    for (let i = 0; i < this.checks.length; i += batchSize) {
      yield await Promise.resolve(this.checks.slice(i, i + batchSize));
    }
  }

  private recordOne(kind: SnapshotKind, entry: LedgerEntry): LedgerAnswer {
    const ids = this.ids[kind];
    const answer: LedgerAnswer = {};
    if (entry.id !== undefined) {
      const first = ids.get(entry.id);
      if (first) answer.id = first.ref;
      else ids.set(entry.id, { ref: entry.ref, gaveExternalId: entry.externalId !== undefined });
    }
    if (entry.name !== undefined) {
      const first = this.names[kind].get(entry.name);
      if (first) answer.name = first;
      else this.names[kind].set(entry.name, entry.ref);
    }
    const clash = targetClash(
      entry,
      (id) => ids.get(id),
      (externalId) => this.given[kind].get(externalId),
    );
    if (clash) answer.target = clash;
    else if (entry.externalId !== undefined) this.given[kind].set(entry.externalId, entry.ref);
    return answer;
  }
}

import type { PolicyKind } from '../domain/identity-policy.js';
import type { FullRead } from '../domain/input.js';
import { attachFacts, itemFacts, type GroupRef } from '../domain/policy-context.js';
import type { SnapshotSink } from '../domain/snapshot-sink.js';
import type { OneRead, ReadOne, SourceIdentity } from '../domain/source-identity.js';

type Item = Record<string, unknown>;

/**
 * One identity found by reading a source in full — a file, an upstream SCIM server: neither is
 * looked up by id — through the stream a full sync reads: the user with that id and the groups
 * that list it; or the group with that id and then, on a second read, the users it lists. Each
 * item gets the facts a full read gives it (its own attributes and the groups it is in).
 */
export function streamedReadOne(raw: FullRead): ReadOne {
  return async (kind: PolicyKind, key, options): Promise<OneRead> => {
    const absent: OneRead = {
      outcome: 'absent',
      reason: `${raw.label} lists no ${kind.slice(0, -1)} ${key}`,
    };
    if (kind === 'users') {
      const pass = new Capture(new Set([key]));
      await raw.stream(pass.sink, options);
      const user = pass.identity(key);
      return user ? { outcome: 'found', identity: user } : absent;
    }
    const first = new Capture(new Set(), key);
    await raw.stream(first.sink, options);
    if (first.group === undefined) return absent;
    const ids = memberIds(first.group);
    const second = new Capture(new Set(ids));
    await raw.stream(second.sink, options);
    const members = ids.flatMap((id) => second.identity(id) ?? []);
    const item = attachFacts({ ...first.group }, itemFacts(first.group));
    return { outcome: 'found', identity: { id: key, label: key, item, members } };
  };
}

/** A sink that keeps the users it is after, the groups they are in, and the group it is after. */
class Capture {
  private readonly users = new Map<string, Item>();
  private readonly groupsOf = new Map<string, GroupRef[]>();
  private readonly tables = new Map<string, Map<string, string>>();
  group: Item | undefined;

  constructor(
    private readonly wanted: ReadonlySet<string>,
    private readonly groupId?: string,
  ) {}

  identity(id: string): SourceIdentity | undefined {
    const user = this.users.get(id);
    if (user === undefined) return undefined;
    return { id, label: id, item: attachFacts({ ...user }, itemFacts(user, this.groupsOf.get(id) ?? [])) };
  }

  readonly sink: SnapshotSink = {
    add: (kind, items) => {
      for (const item of items) {
        if (typeof item !== 'object' || item === null) continue;
        const { id } = item as Item;
        if (typeof id !== 'string') continue;
        if (kind === 'users' && this.wanted.has(id)) this.users.set(id, item as Item);
        if (kind === 'groups') this.addGroup(id, item as Item);
      }
      return Promise.resolve();
    },
    problem: () => undefined,
    // Members are kept or dropped by the users found, not by what was listed before them.
    knownUsers: (ids) => Promise.resolve(ids.map(() => true)),
    remember: (name, entries) => {
      const table = this.tables.get(name) ?? this.tables.set(name, new Map()).get(name)!;
      for (const [k, v] of entries) table.set(k, v);
      return Promise.resolve();
    },
    recall: (name, keys) => Promise.resolve(keys.map((k) => this.tables.get(name)?.get(k))),
  };

  private addGroup(id: string, group: Item): void {
    if (id === this.groupId) this.group = group;
    const ref = { id, name: typeof group.displayName === 'string' ? group.displayName : id };
    for (const member of memberIds(group)) {
      if (!this.wanted.has(member)) continue;
      const list = this.groupsOf.get(member) ?? this.groupsOf.set(member, []).get(member)!;
      list.push(ref);
    }
  }
}

function memberIds(group: Item): string[] {
  const members = Array.isArray(group.members) ? (group.members as unknown[]) : [];
  return [...new Set(members.filter((m): m is string => typeof m === 'string'))];
}

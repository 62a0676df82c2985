import { randomBytes } from 'node:crypto';

/**
 * The Workspace account behind the emulation: one customer, its domains, users (live and deleted),
 * groups and direct memberships, with the indexes the API needs — an address (primary or alias,
 * any case) to its user or group, each member to the groups it is in, and id-sorted lists built
 * once per change so a page costs what the page holds. The records are plain data; control and
 * seeding (google-control.ts) change them, the routes read them.
 */

export type MemberRole = 'OWNER' | 'MANAGER' | 'MEMBER';
export type MemberType = 'USER' | 'GROUP' | 'CUSTOMER';

export interface ExternalId {
  value: string;
  type: string;
  customType?: string;
}

export interface UserRecord {
  /** Immutable: Google's `id`, what a reader keys accounts on. */
  id: string;
  primaryEmail: string;
  givenName: string;
  familyName: string;
  suspended: boolean;
  archived: boolean;
  isAdmin: boolean;
  orgUnitPath: string;
  aliases: string[];
  externalIds: ExternalId[];
  customSchemas: Record<string, Record<string, unknown>>;
  creationTime: number;
  deletionTime?: number;
  etag: string;
}

export interface GroupRecord {
  id: string;
  email: string;
  name: string;
  description: string;
  aliases: string[];
  /** A group of another customer: listed as a member, but its own members are not ours to read. */
  foreign: boolean;
  etag: string;
}

export interface MemberRecord {
  /** The user's, group's or customer's id (an external address gets an id of its own). */
  id: string;
  type: MemberType;
  role: MemberRole;
  /** An address outside the customer: shown as is, with no status. */
  externalEmail?: string;
  /** The alias the member was added by, shown while it still names the member (ssosync #275). */
  viaAlias?: string;
  etag: string;
}

const ETAG_PREFIX = randomBytes(12).toString('base64url');
let etags = 0;

/** A new entity tag: every change gets one no earlier version had. */
export function newEtag(): string {
  return `"${ETAG_PREFIX}/${(++etags).toString(36)}"`;
}

export class WorkspaceModel {
  readonly users = new Map<string, UserRecord>();
  readonly deleted = new Map<string, UserRecord>();
  readonly groups = new Map<string, GroupRecord>();
  /** Direct members of each group, by member id. */
  readonly members = new Map<string, Map<string, MemberRecord>>();
  /** The groups each member id is directly in. */
  readonly memberOf = new Map<string, Set<string>>();
  private readonly addresses = new Map<string, { kind: 'user' | 'group'; id: string }>();
  private readonly memos = new Map<string, unknown>();
  /** Bumped on every change; caches built under an older one are rebuilt. */
  version = 0;

  constructor(
    readonly customerId: string,
    readonly domains: readonly string[],
  ) {}

  /** Whether an address belongs to one of the customer's domains. */
  ours(email: string): boolean {
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    return this.domains.includes(domain);
  }

  resolve(key: string): { kind: 'user' | 'group'; id: string } | undefined {
    return this.addresses.get(key.toLowerCase());
  }

  /** A live user by id, primary email or alias. */
  user(key: string): UserRecord | undefined {
    const id = this.byAddress(key, 'user');
    return this.users.get(key) ?? (id === undefined ? undefined : this.users.get(id));
  }

  /** A group (ours or foreign) by id, email or alias. */
  group(key: string): GroupRecord | undefined {
    const id = this.byAddress(key, 'group');
    return this.groups.get(key) ?? (id === undefined ? undefined : this.groups.get(id));
  }

  index(address: string, kind: 'user' | 'group', id: string): void {
    const key = address.toLowerCase();
    const taken = this.addresses.get(key);
    if (taken && taken.id !== id) throw new Error(`the address ${address} is already taken`);
    this.addresses.set(key, { kind, id });
  }

  unindex(address: string): void {
    this.addresses.delete(address.toLowerCase());
  }

  changed(): void {
    this.version++;
    this.memos.clear();
  }

  /** A value derived from the account, built once and kept until the next change. */
  memo<T>(name: string, build: () => T): T {
    if (this.memos.has(name)) return this.memos.get(name) as T;
    const value = build();
    this.memos.set(name, value);
    return value;
  }

  /** Ids of a collection in ascending order of `key` (then id), kept until the next change. */
  sortedIds(name: string, ids: () => Iterable<string>, key?: (id: string) => string): string[] {
    return this.memo(`sorted:${name}`, () => {
      const list = [...ids()];
      if (!key) return list.sort(compare);
      const keys = new Map(list.map((id) => [id, key(id)]));
      return list.sort((a, b) => compare(keys.get(a) ?? '', keys.get(b) ?? '') || compare(a, b));
    });
  }

  link(groupId: string, member: MemberRecord): void {
    const members = this.members.get(groupId) ?? new Map<string, MemberRecord>();
    members.set(member.id, member);
    this.members.set(groupId, members);
    const of = this.memberOf.get(member.id) ?? new Set<string>();
    of.add(groupId);
    this.memberOf.set(member.id, of);
    this.changed();
  }

  unlink(groupId: string, memberId: string): void {
    this.members.get(groupId)?.delete(memberId);
    this.memberOf.get(memberId)?.delete(groupId);
    this.changed();
  }

  /** Whether `groupId` is `candidate` or nested (at any depth) inside it: what a cycle needs. */
  within(groupId: string, candidate: string): boolean {
    const seen = new Set<string>();
    const queue = [groupId];
    while (queue.length > 0) {
      const id = queue.pop() as string;
      if (id === candidate) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const parent of this.memberOf.get(id) ?? []) queue.push(parent);
    }
    return false;
  }

  private byAddress(key: string, kind: 'user' | 'group'): string | undefined {
    const found = this.addresses.get(key.toLowerCase());
    return found?.kind === kind ? found.id : undefined;
  }
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The index of the first id after `after` in an ascending list (binary search). */
export function firstAfter(list: readonly string[], after: string, keyOf: (id: string) => string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(keyOf(list[middle] as string), after) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

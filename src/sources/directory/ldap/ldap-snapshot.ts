import type { DirectMembers } from '../../../domain/group-graph.js';
import { sendFlattenedGroups } from '../../../domain/held-groups.js';
import { attachFacts } from '../../../domain/policy-context.js';
import type { SnapshotSink } from '../../../domain/snapshot-sink.js';
import { dnKey } from './ldap-dn.js';
import { mapGroup, mapUser, type GroupMap, type MappedGroup, type UserMap } from './ldap-entries.js';
import type { EntryValues } from './ldap-values.js';
import { entryFacts, NO_NEEDS, type LdapMemberships, type PolicyNeeds } from './ldap-policy.js';

/** The sink's scratch table of users by DN: the DN's comparison key (ldap-dn.ts) → the user's id. */
const USERS_BY_DN = 'userdn';

/**
 * An LDAP directory as a stream of snapshot items (domain/snapshot-sink.ts). Users go to the sink
 * page by page, named by their DN in problems, and each DN is remembered in the sink's scratch
 * table (kept in Redis by a sync), so that group members — DNs — find their ids without the process
 * holding every user. Groups are held until all are read, with their member DNs (groups are a few
 * percent of a directory: this graph is what the process holds), and sent flattened
 * (domain/held-groups.ts): members that are users in scope become user ids, those that are groups
 * in scope are flattened (nested groups, cycles cut), the rest — entries outside the user base or
 * filter, contacts, computers, groups out of scope — are dropped.
 */
export class LdapSnapshotStream {
  /** The groups read so far, with their member DNs (finish takes them). */
  readonly groups: { group: MappedGroup; dn: string }[] = [];
  /** Each user's groups, when a scope or mapping reads them (the groups are then read first). */
  memberships: LdapMemberships | undefined;
  /** DNs of entries left out because they have no id or no userName / displayName (the first few). */
  readonly skipped: string[] = [];
  skippedCount = 0;
  droppedMembers = 0;
  users = 0;

  constructor(
    private readonly sink: SnapshotSink,
    private readonly userMap: UserMap,
    private readonly groupMap: GroupMap,
    private readonly needs: PolicyNeeds = NO_NEEDS,
  ) {}

  async addUsers(entries: readonly EntryValues[]): Promise<void> {
    const items: Record<string, unknown>[] = [];
    const origins: { label: string }[] = [];
    const byDn: [string, string][] = [];
    for (const entry of entries) {
      const user = this.needs.facts ? this.withFacts(entry) : mapUser(entry, this.userMap);
      if (user === undefined) {
        this.skip(entry.dn);
        continue;
      }
      items.push(user);
      origins.push({ label: entry.dn });
      byDn.push([dnKey(entry.dn), String(user.id)]);
    }
    this.users += items.length;
    if (items.length === 0) return;
    await this.sink.add('users', items, origins);
    await this.sink.remember(USERS_BY_DN, byDn);
  }

  /** Holds a group entry; returns it mapped (its member ranges may still have to be read). */
  addGroup(entry: EntryValues): MappedGroup | undefined {
    const group = mapGroup(entry, this.groupMap);
    if (group === undefined) {
      this.skip(entry.dn);
      return undefined;
    }
    if (this.needs.facts) attachFacts(group.item, entryFacts(entry));
    this.groups.push({ group, dn: entry.dn });
    return group;
  }

  /**
   * Resolves and flattens the groups' members, and hands the groups to the sink. The stream lets go
   * of the groups and of the users' memberships (every user is read), so that each group's member
   * DNs are freed once resolved.
   */
  async finish(): Promise<number> {
    this.memberships = undefined;
    const groups = this.groups.splice(0).map(({ group, dn }) => ({
      key: dnKey(dn),
      item: group.item,
      label: dn,
      members: group.memberDns,
    }));
    await sendFlattenedGroups(this.sink, groups, (members, held) => this.resolve(members, held));
    return groups.length;
  }

  /** Member DNs: a user's (the sink's table knows it) before a held group's; the rest dropped. */
  private async resolve(
    groups: readonly (readonly string[])[],
    held: (key: string) => boolean,
  ): Promise<DirectMembers[]> {
    const keys = groups.map((memberDns) => memberDns.map(dnKey));
    const userIds = await this.sink.recall(USERS_BY_DN, keys.flat());
    let at = 0;
    return keys.map((memberKeys) => {
      const users: string[] = [];
      const nested: string[] = [];
      for (const key of memberKeys) {
        const user = userIds[at++];
        if (user !== undefined) users.push(user);
        else if (held(key)) nested.push(key);
        else this.droppedMembers++;
      }
      return { users, groups: nested };
    });
  }

  /**
   * The user item with the entry's facts for the scope and mapping, which may give a userName the
   * preset finds none for: only an entry without an id is left out here.
   */
  private withFacts(entry: EntryValues): Record<string, unknown> | undefined {
    const id = entry.first(this.userMap.id)?.values[0];
    if (id === undefined) return undefined;
    const user = mapUser(entry, this.userMap) ?? { id };
    return attachFacts(user, entryFacts(entry, this.memberships?.of(entry.dn)));
  }

  private skip(dn: string): void {
    this.skippedCount++;
    if (this.skipped.length < 5) this.skipped.push(dn);
  }
}

import { dnKey } from './ldap-dn.js';
import { mapGroup, mapUser, type GroupMap, type MappedGroup, type UserMap } from './ldap-entries.js';
import type { EntryValues } from './ldap-values.js';
import { flattenMembers } from './nested-groups.js';
import type { ItemLabels } from './source-snapshot.js';

/**
 * Builds a snapshot from LDAP entries as they arrive, keeping only what the snapshot needs. Group
 * members are DNs: those of users in scope become user ids, those of groups in scope are flattened
 * (nested groups, cycles cut), the rest — entries outside the user base or filter, contacts,
 * computers, groups out of scope — are dropped.
 */
export class LdapSnapshotBuilder {
  private readonly users: Record<string, unknown>[] = [];
  private readonly userDns: string[] = [];
  private readonly userIds = new Map<string, string>();
  private readonly groups: MappedGroup[] = [];
  private readonly groupDns: string[] = [];
  /** DNs of entries left out because they have no id or no userName / displayName. */
  readonly skipped: string[] = [];
  droppedMembers = 0;

  constructor(
    private readonly userMap: UserMap,
    private readonly groupMap: GroupMap,
  ) {}

  addUser(entry: EntryValues): void {
    const user = mapUser(entry, this.userMap);
    if (user === undefined) {
      this.skipped.push(entry.dn);
      return;
    }
    this.users.push(user);
    this.userDns.push(entry.dn);
    const key = dnKey(entry.dn);
    if (!this.userIds.has(key)) this.userIds.set(key, String(user.id));
  }

  addGroup(entry: EntryValues): MappedGroup | undefined {
    const group = mapGroup(entry, this.groupMap);
    if (group === undefined) {
      this.skipped.push(entry.dn);
      return undefined;
    }
    this.groups.push(group);
    this.groupDns.push(entry.dn);
    return group;
  }

  /** The snapshot to validate, and the DN of each item to name it by in problems. */
  build(): { snapshot: { users: unknown[]; groups: unknown[] }; labels: ItemLabels } {
    const positions = new Map<string, number>();
    this.groupDns.forEach((dn, index) => {
      const key = dnKey(dn);
      if (!positions.has(key)) positions.set(key, index);
    });
    const links = this.groups.map((group) => {
      const users: string[] = [];
      const nested: number[] = [];
      for (const dn of group.memberDns) {
        const key = dnKey(dn);
        const user = this.userIds.get(key);
        const position = positions.get(key);
        if (user !== undefined) users.push(user);
        else if (position !== undefined) nested.push(position);
        else this.droppedMembers++;
      }
      return { users, groups: nested };
    });
    const members = flattenMembers(links);
    const groups = this.groups.map((group, index) => ({ ...group.item, members: members[index] ?? [] }));
    return {
      snapshot: { users: this.users, groups },
      labels: { users: this.userDns, groups: this.groupDns },
    };
  }
}

import { groupEntryAttributes, type LdapScope } from './ldap-scope.js';
import { dnKey } from './ldap-dn.js';
import { mapGroup, type MappedGroup } from './ldap-entries.js';
import { allOf, anyOf, escapeFilterValue } from './ldap-filter.js';
import type { LdapReader } from './ldap-reader.js';
import type { EntryValues } from './ldap-values.js';
import { flattenMembers } from './nested-groups.js';

const SEARCH_BATCH = 100;

interface Node {
  dn: string;
  group: MappedGroup;
  users: string[];
  groups: number[];
}

/** A group read afresh: its entry and its snapshot item, members flattened to user ids. */
export interface FlattenedGroup {
  entry: EntryValues;
  item: MappedGroup['item'] & { members: string[] };
}

/**
 * Some groups' members as a full read would find them, read with a few searches: their member DNs
 * resolved to the users in scope (by the DN attribute, a batch of DNs per search), member groups in
 * scope followed down (nested groups, read as they are found; cycles cut), the rest — entries out
 * of scope, contacts, computers — dropped. What a delta read does for the groups it changes, so
 * that it never needs the whole directory.
 */
export class GroupGraph {
  private readonly nodes: Node[] = [];
  private readonly positions = new Map<string, number>();
  private readonly userIds = new Map<string, string>();
  /** The member users found, by id (their entries carry `userAttributes` too). */
  readonly memberEntries = new Map<string, EntryValues>();

  constructor(
    private readonly reader: LdapReader,
    private readonly scope: LdapScope,
    /** Further attributes to read of the member users. */
    private readonly userAttributes: readonly string[] = [],
  ) {}

  async flattened(entries: readonly EntryValues[]): Promise<FlattenedGroup[]> {
    const top: { entry: EntryValues; at: number }[] = [];
    for (const entry of entries) {
      const at = await this.add(entry);
      if (at !== undefined && !top.some((t) => t.at === at)) top.push({ entry, at });
    }
    await this.resolveAll();
    const members = flattenMembers(this.nodes);
    return top.map(({ entry, at }) => ({
      entry,
      item: { ...(this.nodes[at]?.group.item ?? { id: '', displayName: '' }), members: members[at] ?? [] },
    }));
  }

  /** Adds a group entry (its remaining member ranges read); its position, or none when unmappable. */
  private async add(entry: EntryValues): Promise<number | undefined> {
    const key = dnKey(entry.dn);
    const known = this.positions.get(key);
    if (known !== undefined) return known;
    const group = mapGroup(entry, this.scope.mapping.groups);
    if (group === undefined) return undefined;
    for (const range of group.pendingRanges)
      group.memberDns.push(...(await this.reader.rest(entry.dn, range)));
    this.positions.set(key, this.nodes.length);
    this.nodes.push({ dn: entry.dn, group, users: [], groups: [] });
    return this.nodes.length - 1;
  }

  /** Classifies every member DN, reading nested groups as they appear, until none is left. */
  private async resolveAll(): Promise<void> {
    for (let done = 0; done < this.nodes.length;) {
      const batch = this.nodes.slice(done);
      done = this.nodes.length;
      const dns = [...new Set(batch.flatMap((node) => node.group.memberDns))];
      await this.findUsers(dns.filter((dn) => !this.userIds.has(dnKey(dn))));
      const rest = dns.filter((dn) => !this.userIds.has(dnKey(dn)) && !this.positions.has(dnKey(dn)));
      for (const entry of await this.searchByDn(
        this.scope.groupBase,
        this.scope.mapping.groupFilter,
        rest,
        groupEntryAttributes(this.scope),
      ))
        await this.add(entry);
      for (const node of batch) this.link(node);
    }
  }

  private link(node: Node): void {
    for (const dn of node.group.memberDns) {
      const key = dnKey(dn);
      const user = this.userIds.get(key);
      const group = this.positions.get(key);
      if (user !== undefined) node.users.push(user);
      else if (group !== undefined) node.groups.push(group);
    }
  }

  private async findUsers(dns: readonly string[]): Promise<void> {
    const { mapping } = this.scope;
    const attributes = [...new Set([...mapping.users.id, ...mapping.users.userName, ...this.userAttributes])];
    for (const entry of await this.searchByDn(this.scope.userBase, mapping.userFilter, dns, attributes)) {
      const id = entry.first(mapping.users.id)?.values[0];
      // Under a scope and mapping, the mapping may name a user the preset cannot: it is a member.
      const named = this.scope.facts === true || entry.first(mapping.users.userName) !== undefined;
      if (id === undefined || !named) continue;
      this.userIds.set(dnKey(entry.dn), id);
      this.memberEntries.set(id, entry);
    }
  }

  private async searchByDn(
    base: string,
    filter: string,
    dns: readonly string[],
    attributes: readonly string[],
  ): Promise<EntryValues[]> {
    const found: EntryValues[] = [];
    for (let i = 0; i < dns.length; i += SEARCH_BATCH) {
      const values = dns.slice(i, i + SEARCH_BATCH).map(escapeFilterValue);
      found.push(
        ...(await this.reader.search(base, allOf(filter, anyOf(this.scope.dnAttribute, values)), attributes)),
      );
    }
    return found;
  }
}

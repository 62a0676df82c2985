import {
  flattenGroups,
  withAncestors,
  type DirectMembers,
  type GroupEdges,
} from '../../../domain/group-graph.js';
import { groupEntryAttributes, type LdapScope } from './ldap-scope.js';
import { dnKey } from './ldap-dn.js';
import { groupMembers, mapGroup, type MappedGroup } from './ldap-entries.js';
import { allOf, anyOf, escapeFilterValue } from './ldap-filter.js';
import type { LdapReader } from './ldap-reader.js';
import type { EntryValues } from './ldap-values.js';

const SEARCH_BATCH = 100;

/** A group read afresh: its entry and its snapshot item, members flattened to user ids. */
export interface FlattenedGroup {
  entry: EntryValues;
  item: MappedGroup['item'] & { members: string[] };
}

/**
 * Some groups of an LDAP directory as a group graph (domain/group-graph.ts), read with a few
 * searches: what a delta read, and a read of one group, do for the groups they change, so that they
 * never need the whole directory. Its groups are those in scope (under the group base, matching the
 * group filter, mappable), by their DN's key (ldap-dn.ts). A group's members are its member DNs
 * resolved to the users in scope (by the DN attribute, a batch of DNs per search) and to the groups
 * in scope (read as they are found); the rest — entries out of scope, contacts, computers — are
 * dropped. A group's parents are asked of the directory, the one place that knows them: the groups
 * in scope that list its DN.
 */
export class LdapGroupEdges implements GroupEdges {
  /** The groups in scope read so far, with every member DN. */
  private readonly groups = new Map<string, { item: MappedGroup['item']; memberDns: readonly string[] }>();
  /** The users in scope found so far: their ids by their DN's key. */
  private readonly userIds = new Map<string, string>();
  /** The member DNs of each group entry read, every range read (so each group's once). */
  private readonly memberLists = new Map<string, readonly string[]>();
  /** The groups found holding others (in scope, mappable or not), in the order found. */
  private readonly holders = new Map<string, EntryValues>();
  /** DNs by their key, as first spelled: what a search for a group's holders asks for. */
  private readonly dns = new Map<string, string>();
  /** The member users found, by id (their entries carry `userAttributes` too). */
  readonly memberEntries = new Map<string, EntryValues>();

  constructor(
    private readonly reader: LdapReader,
    private readonly scope: LdapScope,
    /** Further attributes to read of the member users. */
    private readonly userAttributes: readonly string[] = [],
  ) {}

  /** These groups, each once, with their members flattened; an entry that cannot be mapped is left out. */
  async flattened(entries: readonly EntryValues[]): Promise<FlattenedGroup[]> {
    const top = new Map<string, { entry: EntryValues; item: MappedGroup['item'] }>();
    for (const entry of entries) {
      const key = await this.add(entry);
      const group = key === undefined ? undefined : this.groups.get(key);
      if (key !== undefined && group !== undefined && !top.has(key))
        top.set(key, { entry, item: group.item });
    }
    const members = await flattenGroups(this, [...top.keys()]);
    return [...top].map(([key, { entry, item }]) => ({
      entry,
      item: { ...item, members: members.get(key) ?? [] },
    }));
  }

  /**
   * The groups in scope that contain any of these DNs, and those that contain them, up the nesting
   * (cycles cut), in the order found: what a change of a nested group changes on the platform.
   */
  async holding(dns: readonly string[]): Promise<EntryValues[]> {
    const changed = new Set(dns.map((dn) => this.keyOf(dn)));
    const above = await withAncestors(this, [...changed]);
    return [...this.holders].flatMap(([key, entry]) => (above.has(key) && !changed.has(key) ? [entry] : []));
  }

  /** Classifies the groups' member DNs, reading the member groups in scope found among them. */
  async members(keys: readonly string[]): Promise<ReadonlyMap<string, DirectMembers>> {
    const groups = keys.flatMap((key) => this.groups.get(key) ?? []);
    const dns = [...new Set(groups.flatMap((group) => group.memberDns))];
    await this.findUsers(dns.filter((dn) => !this.userIds.has(dnKey(dn))));
    const rest = dns.filter((dn) => !this.userIds.has(dnKey(dn)) && !this.groups.has(dnKey(dn)));
    const { groupBase, mapping } = this.scope;
    const attributes = groupEntryAttributes(this.scope);
    for (const entry of await this.searchByDn(groupBase, mapping.groupFilter, rest, attributes))
      await this.add(entry);
    const found = new Map<string, DirectMembers>();
    for (const key of keys) {
      const group = this.groups.get(key);
      if (group !== undefined) found.set(key, this.direct(group.memberDns));
    }
    return found;
  }

  /**
   * The groups in scope that list these groups among their members, by a search per batch of DNs.
   * A key is that of a group this graph has met (its DN is what the search asks for).
   */
  async parents(keys: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>> {
    const found = new Map<string, string[]>();
    const met = keys.filter((key) => this.dns.has(key));
    for (let i = 0; i < met.length; i += SEARCH_BATCH) {
      const batch = met.slice(i, i + SEARCH_BATCH);
      for (const entry of await this.searchHolders(batch)) {
        const key = this.keyOf(entry.dn);
        if (!this.holders.has(key)) this.holders.set(key, entry);
        const listed = new Set((await this.memberDnsOf(entry)).map(dnKey));
        const held = batch.filter((child) => listed.has(child));
        // The directory matched it to one of the batch: should its listing spell that member in a
        // way dnKey does not read as the same DN, it is kept as a parent of each.
        for (const child of held.length > 0 ? held : batch)
          found.set(child, [...(found.get(child) ?? []), key]);
      }
    }
    return found;
  }

  /** Adds a group entry in scope (its member ranges read); its key, or none when it cannot be mapped. */
  private async add(entry: EntryValues): Promise<string | undefined> {
    const key = this.keyOf(entry.dn);
    if (this.groups.has(key)) return key;
    const group = mapGroup(entry, this.scope.mapping.groups);
    if (group === undefined) return undefined;
    this.groups.set(key, { item: group.item, memberDns: await this.memberDnsOf(entry) });
    return key;
  }

  /** Every member DN of a group entry, its further ranges read (Active Directory). */
  private async memberDnsOf(entry: EntryValues): Promise<readonly string[]> {
    const key = dnKey(entry.dn);
    const known = this.memberLists.get(key);
    if (known !== undefined) return known;
    const { memberDns, pendingRanges } = groupMembers(entry, this.scope.mapping.groups);
    for (const range of pendingRanges) memberDns.push(...(await this.reader.rest(entry.dn, range)));
    this.memberLists.set(key, memberDns);
    return memberDns;
  }

  /** Member DNs as users (first) and groups of the graph; what is neither is dropped. */
  private direct(memberDns: readonly string[]): DirectMembers {
    const users: string[] = [];
    const groups: string[] = [];
    for (const dn of memberDns) {
      const key = dnKey(dn);
      const user = this.userIds.get(key);
      if (user !== undefined) users.push(user);
      else if (this.groups.has(key)) groups.push(key);
    }
    return { users, groups };
  }

  private keyOf(dn: string): string {
    const key = dnKey(dn);
    if (!this.dns.has(key)) this.dns.set(key, dn);
    return key;
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

  /** The groups in scope whose member attributes list any of these groups' DNs. */
  private searchHolders(keys: readonly string[]): Promise<EntryValues[]> {
    const values = keys.flatMap((key) => this.dns.get(key) ?? []).map(escapeFilterValue);
    const { mapping } = this.scope;
    const members = mapping.groups.members.map((attribute) => anyOf(attribute, values));
    const listing = members.length === 1 ? (members[0] ?? '') : `(|${members.join('')})`;
    return this.reader.search(
      this.scope.groupBase,
      allOf(mapping.groupFilter, listing),
      groupEntryAttributes(this.scope),
    );
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

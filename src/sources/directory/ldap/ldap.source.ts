import type { Client } from 'ldapts';
import { BridgeError } from '../../../domain/errors.js';
import type { Snapshot } from '../../../domain/identity.js';
import type { SnapshotSink } from '../../../domain/snapshot-sink.js';
import type { Logger } from '../../../ops/logger.js';
import type { DirectorySource, ReadOptions } from '../directory-source.js';
import { resolveMapping, type LdapMapping, type MappingSettings } from './ldap-attribute-map.js';
import {
  ldapError,
  openLdapConnection,
  serverLabel,
  type LdapConnectionSettings,
} from './ldap-connection.js';
import { readRemainingRanges } from './ldap-ranged-values.js';
import type { MappedGroup } from './ldap-entries.js';
import { LdapSnapshotStream } from './ldap-snapshot.js';
import { binaryAttributeNames, EntryValues } from './ldap-values.js';
import { collectSnapshot } from '../collect-snapshot.js';
import { LdapMemberships, NO_NEEDS, type PolicyNeeds } from './ldap-policy.js';
import { readLdapOne } from './ldap-one.js';
import type { PolicyKind } from '../../../domain/identity-policy.js';
import type { OneRead } from '../../../domain/source-identity.js';

/**
 * The `ldap` directory source (OpenLDAP, Active Directory, any LDAPv3 server): users and groups
 * from a paged subtree search each (RFC 2696; Active Directory returns at most 1,000 entries per
 * page), mapped by the preset and overrides of ldap-attribute-map.ts. One connection per read,
 * closed at the end. Referrals are not followed.
 */

export interface LdapSourceSettings extends LdapConnectionSettings, MappingSettings {
  userBase: string;
  groupBase: string;
  pageSize: number;
}

export class LdapDirectorySource implements DirectorySource {
  readonly attachesMembership = true;
  private readonly mapping: LdapMapping;

  constructor(
    private readonly settings: LdapSourceSettings,
    private readonly logger?: Logger,
    private readonly needs: PolicyNeeds = NO_NEEDS,
  ) {
    this.mapping = resolveMapping(settings);
  }

  get label(): string {
    return `The LDAP directory at ${serverLabel(this.settings.url)}`;
  }

  read(options: ReadOptions = {}): Promise<Snapshot> {
    return collectSnapshot(this, options);
  }

  /** One user or group, by its id or DN (ldap-one.ts). */
  readOne(kind: PolicyKind, key: string, options: ReadOptions = {}): Promise<OneRead> {
    return readLdapOne(this.settings, this.mapping, this.needs, kind, key, options.signal);
  }

  async stream(sink: SnapshotSink, options: ReadOptions = {}): Promise<void> {
    const { signal } = options;
    signal?.throwIfAborted();
    const client = await openLdapConnection(this.settings);
    try {
      const stream = new LdapSnapshotStream(sink, this.mapping.users, this.mapping.groups, this.needs);
      // A scope or mapping that reads group membership needs the groups before the users.
      if (!this.needs.membership) await this.search(client, 'users', signal, (e) => stream.addUsers(e));
      await this.readGroups(client, stream, signal);
      if (this.needs.membership) {
        stream.memberships = new LdapMemberships(stream.groups);
        await this.search(client, 'users', signal, (entries) => stream.addUsers(entries));
      }
      const groups = await stream.finish();
      this.report(stream, groups);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** Every group to the stream, its member ranges read (Active Directory). */
  private async readGroups(client: Client, stream: LdapSnapshotStream, signal?: AbortSignal): Promise<void> {
    const ranged: { group: MappedGroup; dn: string }[] = [];
    await this.search(client, 'groups', signal, (entries) => {
      for (const entry of entries) {
        const group = stream.addGroup(entry);
        if (group !== undefined && group.pendingRanges.length > 0) ranged.push({ group, dn: entry.dn });
      }
      return Promise.resolve();
    });
    for (const { group, dn } of ranged) {
      for (const range of group.pendingRanges)
        group.memberDns.push(...(await this.readRest(client, dn, range)));
    }
  }

  /** One paged subtree search (RFC 2696) of users or groups, entry by entry. */
  private async search(
    client: Client,
    kind: 'users' | 'groups',
    signal: AbortSignal | undefined,
    onPage: (entries: EntryValues[]) => Promise<void>,
  ): Promise<void> {
    const base = kind === 'users' ? this.settings.userBase : this.settings.groupBase;
    const attributes = [...new Set([...Object.values(this.mapping[kind]).flat(), ...this.needs[kind]])];
    const request = {
      scope: 'sub' as const,
      filter: kind === 'users' ? this.mapping.userFilter : this.mapping.groupFilter,
      attributes,
      explicitBufferAttributes: binaryAttributeNames(attributes),
      paged: { pageSize: this.settings.pageSize },
    };
    try {
      for await (const page of client.searchPaginated(base, request)) {
        signal?.throwIfAborted();
        await onPage(page.searchEntries.map((entry) => new EntryValues(entry)));
      }
    } catch (error) {
      if (signal?.aborted === true || error instanceof BridgeError) throw error;
      throw ldapError(error, 'search', this.settings, base);
    }
  }

  /** The members of an Active Directory group beyond its first range. */
  private async readRest(
    client: Client,
    dn: string,
    range: { name: string; start: number },
  ): Promise<string[]> {
    try {
      return await readRemainingRanges(range.name, range.start, async (attribute) => {
        const result = await client.search(dn, { scope: 'base', attributes: [attribute] });
        const entry = result.searchEntries[0];
        return entry === undefined ? undefined : new EntryValues(entry);
      });
    } catch (error) {
      throw ldapError(error, 'search', this.settings, dn);
    }
  }

  private report(stream: LdapSnapshotStream, groups: number): void {
    if (stream.skippedCount > 0) {
      this.logger?.warn(
        { count: stream.skippedCount, examples: stream.skipped },
        'LDAP entries left out of the snapshot: no value for id or userName (groups: id or displayName)',
      );
    }
    this.logger?.debug(
      { users: stream.users, groups, droppedMembers: stream.droppedMembers },
      'LDAP directory read',
    );
  }
}

import { NoSuchObjectError, type Client, type Control, type Filter } from 'ldapts';
import { BridgeError } from '../../../domain/errors.js';
import { ldapError, type LdapConnectionSettings } from './ldap-connection.js';
import { readRemainingRanges } from './ldap-ranged-values.js';
import { binaryAttributeNames, EntryValues } from './ldap-values.js';

/**
 * The searches of one delta read on one connection: paged (RFC 2696), errors named by the server
 * and the base (never the password), and every entry counted (what a delta read costs the
 * directory). An entry looked up by its DN that does not exist reads as none; a subtree search of a
 * base that does not exist — or that the bind account can no longer see, which OpenLDAP answers
 * alike — fails: read as no entries, it would make every changed entry look gone from its base.
 */
export class LdapReader {
  entriesRead = 0;

  constructor(
    readonly client: Client,
    private readonly settings: LdapConnectionSettings & { pageSize: number },
    private readonly signal?: AbortSignal,
  ) {}

  /** `filter`: a string, or a Filter object for values a string cannot carry (binary ones). */
  async search(
    base: string,
    filter: string | Filter,
    attributes: readonly string[],
    options: { scope?: 'base' | 'one' | 'sub'; controls?: Control[] } = {},
  ): Promise<EntryValues[]> {
    this.signal?.throwIfAborted();
    const request = {
      scope: options.scope ?? ('sub' as const),
      filter,
      attributes: [...attributes],
      explicitBufferAttributes: binaryAttributeNames(attributes),
      paged: { pageSize: this.settings.pageSize },
    };
    const entries: EntryValues[] = [];
    try {
      for await (const page of this.client.searchPaginated(base, request, options.controls)) {
        this.signal?.throwIfAborted();
        entries.push(...page.searchEntries.map((entry) => new EntryValues(entry)));
      }
    } catch (error) {
      if (error instanceof NoSuchObjectError && request.scope === 'base') return [];
      if (this.signal?.aborted === true || error instanceof BridgeError) throw error;
      throw ldapError(error, 'search', this.settings, base);
    }
    this.entriesRead += entries.length;
    return entries;
  }

  /** One entry by its DN (base scope); undefined when it is gone. */
  async entry(dn: string, attributes: readonly string[]): Promise<EntryValues | undefined> {
    const [entry] = await this.search(dn, '(objectClass=*)', attributes, { scope: 'base' });
    return entry;
  }

  /** The values of a ranged attribute beyond its first range (Active Directory). */
  async rest(dn: string, range: { name: string; start: number }): Promise<string[]> {
    return readRemainingRanges(range.name, range.start, (attribute) => this.entry(dn, [attribute]));
  }
}

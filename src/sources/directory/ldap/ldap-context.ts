import { dnKey } from './ldap-dn.js';
import type { LdapReader } from './ldap-reader.js';

/** The naming context (database) a directory's entries live in, as a delta read checks it. */
export interface NamingContext {
  dn: string;
  /** Its entryUUID (OpenLDAP) or objectGUID: another database answering has another one. */
  uuid: string;
  /** Its contextCSN (OpenLDAP's syncprov keeps it), '' when the server keeps none. */
  csn: string;
}

/**
 * The naming context that holds `base` (the longest of the rootDSE's namingContexts it is under),
 * with its identity and change sequence; undefined when the server names none that holds it.
 */
export async function namingContextOf(reader: LdapReader, base: string): Promise<NamingContext | undefined> {
  const root = await reader.entry('', ['namingContexts']);
  const key = dnKey(base);
  const contexts = (root?.text('namingContexts') ?? [])
    .filter((context) => isUnder(key, dnKey(context)))
    .sort((a, b) => b.length - a.length);
  const dn = contexts[0];
  if (dn === undefined) return undefined;
  const entry = await reader.entry(dn, ['entryUUID', 'objectGUID', 'contextCSN']);
  const uuid = entry?.first(['entryUUID', 'objectGUID'])?.values[0] ?? '';
  const csn = [...(entry?.text('contextCSN') ?? [])].sort().at(-1) ?? '';
  return { dn, uuid, csn };
}

/** Whether the DN (as its dnKey) is the other or under it. */
export function isUnder(key: string, parentKey: string): boolean {
  const child = JSON.parse(key) as unknown[];
  const parent = JSON.parse(parentKey) as unknown[];
  if (parent.length > child.length) return false;
  const tail = child.slice(child.length - parent.length);
  return JSON.stringify(tail) === parentKey;
}

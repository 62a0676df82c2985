import { openLdapConnection, type LdapConnectionSettings } from './ldap-connection.js';
import { LdapReader } from './ldap-reader.js';

/** What a delta read needs of the LDAP settings: the connection, the bases, the page size. */
export interface LdapDeltaSettings extends LdapConnectionSettings {
  userBase: string;
  groupBase: string;
  pageSize: number;
}

/** Runs a delta read on its own connection, closed whatever happens. */
export async function withLdapReader<T>(
  settings: LdapDeltaSettings,
  signal: AbortSignal | undefined,
  read: (reader: LdapReader) => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  const client = await openLdapConnection(settings);
  try {
    return await read(new LdapReader(client, settings, signal));
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

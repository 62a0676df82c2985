import type { Snapshot } from '../../domain/identity.js';
import type { Logger } from '../../ops/logger.js';

/**
 * A configured directory (SPEC §5.4): a JSON file, an LDAP / Active Directory server or an upstream
 * SCIM server, read whole at each full reconciliation. `read()` returns a validated snapshot or
 * throws BridgeError: `source_unavailable` when the directory could not be read (retryable when
 * trying again later may help: network, timeouts), `source_invalid` when what it returned is not a
 * valid snapshot (`problems` lists why). Messages name the directory, never its credentials.
 */
export interface DirectorySource {
  readonly kind: 'file' | 'ldap' | 'scim';
  read(options?: ReadOptions): Promise<Snapshot>;
}

export interface ReadOptions {
  /** Abandons the read (e.g. a cancelled sync); it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface DirectorySourceDeps {
  /** Warnings about entries left out (LDAP entries without an id or userName). */
  logger?: Logger;
  /** Per-request timeout of the upstream SCIM source; 30 s by default. */
  scimTimeoutMs?: number;
}

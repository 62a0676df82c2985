import type { ApiMetrics } from '../../api-client/api-metrics.js';
import type { Snapshot } from '../../domain/identity.js';
import type { ReadOne } from '../../domain/source-identity.js';
import type { ReadOptions, SnapshotSource } from '../../domain/snapshot-sink.js';
import type { Logger } from '../../ops/logger.js';

export type { ReadOptions } from '../../domain/snapshot-sink.js';

/**
 * A configured directory (SPEC §5.4): a JSON or NDJSON file, an LDAP / Active Directory server or
 * an upstream SCIM server, read afresh at each full reconciliation. A sync reads it as a stream
 * (`stream`, domain/snapshot-sink.ts), a batch of items at a time, so that a directory of any size
 * is read in bounded memory; `read()` collects the same stream into a validated snapshot (tests,
 * small directories). Errors are BridgeErrors: `source_unavailable` when the directory could not be
 * read (retryable when trying again later may help: network, timeouts), `source_invalid` when what
 * it returned is not a valid snapshot (`problems` lists why). Messages name the directory, never
 * its credentials.
 */
export interface DirectorySource extends SnapshotSource {
  readonly kind: 'file' | 'ldap' | 'scim';
  read(options?: ReadOptions): Promise<Snapshot>;
  /** One identity by its key, read with a few searches; sources without it are read in full for it. */
  readOne?: ReadOne;
}

export interface DirectorySourceDeps {
  /** Warnings about entries left out (LDAP entries without an id or userName). */
  logger?: Logger;
  /** Per-request timeout of the upstream SCIM source; 30 s by default. */
  scimTimeoutMs?: number;
  /** Requests to the APIs a source reads (the upstream SCIM source), counted under `directory`. */
  metrics?: ApiMetrics;
}

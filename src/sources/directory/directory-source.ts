import type { Snapshot } from '../../domain/identity.js';
import type { ReadOne } from '../../domain/source-identity.js';
import type { ReadOptions, SnapshotSource } from '../../domain/snapshot-sink.js';

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
  read(options?: ReadOptions): Promise<Snapshot>;
  /** One identity by its key, read with a few searches; sources without it are read in full for it. */
  readOne?: ReadOne;
  /**
   * Its items carry each user's groups as facts (LDAP reads membership itself); otherwise a scope
   * or mapping that reads membership has the source read once more for its groups (policy-read.ts).
   */
  readonly attachesMembership?: boolean;
  /**
   * Signs in and makes one cheap read of each thing it needs (a permission, a base), each reported
   * in plain words — a refused secret, a missing permission — for check-config: no write, nothing kept.
   */
  check?(options?: ReadOptions): Promise<SourceCheck[]>;
  /**
   * A digest of what a read of the source would give now, for a source that can tell cheaply (a
   * file: the SHA-256 of its bytes): two reads with equal digests give the same items, so a full
   * sync whose source is unchanged since its last applied read plans from the desired state
   * instead of reading it again. Undefined when it cannot tell.
   */
  fingerprint?(options?: ReadOptions): Promise<string | undefined>;
}

/** One check of what a source needs, as check-config prints it. */
export interface SourceCheck {
  /** What was checked: `sign-in`, `User.Read.All`, `ou=people,dc=example,dc=com`. */
  readonly what: string;
  readonly ok: boolean;
  /** Why not, in plain words (never a secret). */
  readonly detail?: string;
}

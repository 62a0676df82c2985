import type { StoredGroupEdges } from './group-graph.js';
import type { StoredLookup } from './source-lookup.js';
import type { ProblemPath } from './snapshot-problems.js';
import type { SnapshotKind } from './snapshot-ledger.js';
import type { ItemOrigin } from './snapshot-validator.js';

/**
 * How a directory reaches a full sync: as a stream of raw items handed to a sink a batch at a
 * time, in the directory's order, never as a whole snapshot in memory. The sink checks each item
 * (snapshot-validator.ts) and stages it (sync/source-stager.ts); reading a directory whole for a
 * test or a small export collects the same stream (sources/directory/collect-snapshot.ts).
 */
export interface SnapshotSink {
  /** Raw items of one kind; `origins` name them in problems (a DN, an upstream id, a line). */
  add(
    kind: SnapshotKind,
    items: readonly unknown[],
    origins?: readonly (ItemOrigin | undefined)[],
  ): Promise<void>;
  /** A problem of the snapshot's top level, e.g. `users: not an array`. */
  problem(path: ProblemPath, reason: string): void;
  /** Of these user ids, which the snapshot holds so far (sources that drop unknown members). */
  knownUsers(ids: readonly string[]): Promise<boolean[]>;
  /**
   * Key → value tables a source needs while it reads (LDAP: a user's DN → its id), kept outside
   * the process for the length of the read. Table names are lower-case words.
   */
  remember(table: string, entries: readonly (readonly [string, string])[]): Promise<void>;
  recall(table: string, keys: readonly string[]): Promise<(string | undefined)[]>;
  /**
   * An item left out by its input's scope and mapping because they cannot map it (an expression
   * failed on it, an empty userName): reported with the sync, never a problem of the snapshot.
   */
  skip?(kind: SnapshotKind, label: string, reason: string): void;
}

export interface ReadOptions {
  /** Abandons the read (e.g. a cancelled sync); it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The input's nested groups as the bridge keeps them between reads: a source whose change reads
   * flatten nested groups replaces them at the end of a full read, and reads them in a change read.
   */
  groupEdges?: StoredGroupEdges;
  /**
   * The input's own lookup table as the bridge keeps it between reads (source-lookup.ts): a source
   * whose change feed names identities otherwise than by id replaces it at the end of a full read.
   */
  lookup?: StoredLookup;
}

/** A directory a full sync reads as a stream. */
export interface SnapshotSource {
  /** The directory as messages name it ("The directory file /data/x.json"), never its credentials. */
  readonly label: string;
  /**
   * Hands every item to the sink. Throws BridgeError `source_unavailable` when the directory could
   * not be read, `source_invalid` when what it returned cannot be read as items at all (not JSON);
   * the items' own problems are the sink's to collect.
   */
  stream(sink: SnapshotSink, options?: ReadOptions): Promise<void>;
}

/** Items handed to a sink per call. */
export const SOURCE_BATCH = 1000;

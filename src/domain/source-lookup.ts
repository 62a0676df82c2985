/**
 * A source's own lookup table, kept per input between reads (store/source-lookup.store.ts): what
 * a change read needs of the last full read that its source's change feed does not say. Google's
 * audit log names users and groups by address, never by id, and an address stops resolving once
 * renamed or deleted: the table keeps address → id (and a group's id → its names) as the last
 * read left them. A full read replaces the table whole; a change read updates the entries it
 * learned. Keys and values are the source's own text.
 */
export interface StoredLookup {
  /** Whether a full read has left a table (without one, a change read asks for a full read). */
  exists(): Promise<boolean>;
  /** The values of these keys, undefined where the table holds none. */
  get(keys: readonly string[]): Promise<(string | undefined)[]>;
  set(entries: readonly (readonly [string, string])[]): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
  /** Replaces the whole table (a reader sees the old one or the new one, never half of each). */
  replace(entries: Iterable<readonly [string, string]>): Promise<void>;
}

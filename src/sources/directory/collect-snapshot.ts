import type { DesiredGroup, DesiredUser, Snapshot } from '../../domain/identity.js';
import { SnapshotChecker, sourceInvalid } from '../../domain/snapshot.js';
import { MemoryLedger } from '../../domain/snapshot-ledger.js';
import type { ReadOptions, SnapshotSink, SnapshotSource } from '../../domain/snapshot-sink.js';

/**
 * Reads a directory whole into a validated snapshot, through the same stream a sync reads it by
 * (the rules across items kept in memory): for tests and small directories. Throws
 * `source_invalid` listing the problems, named as the source names its items.
 */
export async function collectSnapshot(source: SnapshotSource, options: ReadOptions = {}): Promise<Snapshot> {
  const ledger = new MemoryLedger();
  const checker = new SnapshotChecker(ledger);
  const users: DesiredUser[] = [];
  const groups: DesiredGroup[] = [];
  const tables = new Map<string, Map<string, string>>();
  const table = (name: string) => tables.get(name) ?? tables.set(name, new Map()).get(name)!;
  const sink: SnapshotSink = {
    add: async (kind, items, origins) => {
      if (kind === 'users') users.push(...(await checker.addUsers(items, origins)));
      else groups.push(...(await checker.addGroups(items, origins)));
    },
    problem: (path, reason) => checker.addProblem(path, reason),
    knownUsers: (ids) => ledger.hasUsers(ids),
    remember: async (name, entries) => {
      for (const [key, value] of entries) table(name).set(key, value);
      return Promise.resolve();
    },
    recall: (name, keys) => Promise.resolve(keys.map((key) => table(name).get(key))),
  };
  await source.stream(sink, options);
  options.signal?.throwIfAborted();
  const verdict = await checker.finish();
  if (!verdict.ok) throw sourceInvalid(source.label, verdict.total, verdict.problems);
  return { users, groups };
}

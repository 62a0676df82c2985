import { BridgeError } from './errors.js';
import type { DesiredGroup, DesiredUser, Snapshot } from './identity.js';
import { MemoryLedger } from './snapshot-ledger.js';
import { snapshotShape } from './snapshot.schema.js';
import { SOURCE_BATCH, type SnapshotSink } from './snapshot-sink.js';
import { SnapshotChecker } from './snapshot-validator.js';

/**
 * Validation of a directory snapshot (SPEC §5.4) — a file, a `POST /admin/sync` body, what an LDAP
 * or SCIM directory gave: every problem is listed as `path: reason` (the first 100 of them, then the
 * total), and a snapshot with any problem is refused whole. The rules are in snapshot-validator.ts;
 * this module checks a snapshot held in memory. Large snapshots are checked as they stream in
 * (sync/source-stager.ts), against a ledger kept in Redis.
 */

export { MAX_LISTED_PROBLEMS } from './snapshot-problems.js';
export { SnapshotChecker, type SnapshotVerdict, type ItemOrigin } from './snapshot-validator.js';

export type SnapshotCheck =
  | { ok: true; snapshot: Snapshot }
  | {
      ok: false;
      /** `path: reason` lines, at most 100 and a count line. */ problems: string[];
      total: number;
    };

/** Returns the snapshot in the form the store takes, or every problem found. */
export async function checkSnapshot(input: unknown): Promise<SnapshotCheck> {
  const checker = new SnapshotChecker(new MemoryLedger());
  const users: DesiredUser[] = [];
  const groups: DesiredGroup[] = [];
  await feedSnapshot(input, {
    add: async (kind, items) => {
      if (kind === 'users') users.push(...(await checker.addUsers(items)));
      else groups.push(...(await checker.addGroups(items)));
    },
    problem: (path, reason) => checker.addProblem(path, reason),
  });
  const verdict = await checker.finish();
  if (!verdict.ok) return { ok: false, problems: verdict.problems, total: verdict.total };
  return { ok: true, snapshot: { users, groups } };
}

/**
 * Hands a snapshot held in memory (`{"users": [...], "groups": [...]}`) to a sink as a source
 * would: its top-level problems, then its items in batches.
 */
export async function feedSnapshot(
  input: unknown,
  sink: Pick<SnapshotSink, 'add' | 'problem'>,
): Promise<void> {
  const top = snapshotShape.safeParse(input);
  if (!top.success) for (const issue of top.error.issues) sink.problem(issue.path, issue.message);
  for (const kind of ['users', 'groups'] as const) {
    const items = arrayField(input, kind);
    for (let i = 0; i < items.length; i += SOURCE_BATCH)
      await sink.add(kind, items.slice(i, i + SOURCE_BATCH));
  }
}

/** Like checkSnapshot, but throws `invalid_input` (status 400) with `problems` when invalid. */
export async function validateSnapshot(input: unknown): Promise<Snapshot> {
  const result = await checkSnapshot(input);
  if (result.ok) return result.snapshot;
  throw invalidSnapshot(result.total, result.problems);
}

/** The error of a refused snapshot: `invalid_input`, status 400, the problems listed. */
export function invalidSnapshot(total: number, problems: readonly string[]): BridgeError {
  return new BridgeError('invalid_input', `Invalid snapshot: ${countProblems(total)}`, {
    status: 400,
    problems: [...problems],
  });
}

/** A directory whose snapshot breaks the rules: `source_invalid`, the problems listed. */
export function sourceInvalid(label: string, total: number, problems: readonly string[]): BridgeError {
  return new BridgeError('source_invalid', `${label} gave an invalid snapshot: ${countProblems(total)}`, {
    problems: [...problems],
  });
}

export function countProblems(total: number): string {
  return total === 1 ? '1 problem' : `${total} problems`;
}

function arrayField(input: unknown, name: string): readonly unknown[] {
  if (typeof input !== 'object' || input === null) return [];
  const value = (input as Record<string, unknown>)[name];
  return Array.isArray(value) ? (value as unknown[]) : [];
}

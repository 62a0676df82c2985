import { BridgeError } from './errors.js';
import type { Snapshot } from './identity.js';
import { snapshotShape } from './snapshot.schema.js';
import { SnapshotValidator, type SnapshotCheck } from './snapshot-validator.js';

/**
 * Validation of a directory snapshot (SPEC §5.4) — a file, a `POST /admin/sync` body, what an LDAP
 * or SCIM directory gave: every problem is listed as `path: reason` (the first 100 of them, then the
 * total), and a snapshot with any problem is refused whole. The rules are in snapshot-validator.ts.
 */

export { MAX_LISTED_PROBLEMS } from './snapshot-problems.js';
export { SnapshotValidator, type SnapshotCheck } from './snapshot-validator.js';

/** Returns the snapshot in the form the store takes, or every problem found. */
export function checkSnapshot(input: unknown): SnapshotCheck {
  const validator = new SnapshotValidator();
  const top = snapshotShape.safeParse(input);
  if (!top.success) for (const issue of top.error.issues) validator.addProblem(issue.path, issue.message);
  for (const user of arrayField(input, 'users')) validator.addUser(user);
  for (const group of arrayField(input, 'groups')) validator.addGroup(group);
  return validator.finish();
}

/** Like checkSnapshot, but throws `invalid_input` (status 400) with `problems` when invalid. */
export function validateSnapshot(input: unknown): Snapshot {
  const result = checkSnapshot(input);
  if (result.ok) return result.snapshot;
  throw new BridgeError('invalid_input', `Invalid snapshot: ${countProblems(result.total)}`, {
    status: 400,
    problems: result.problems,
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

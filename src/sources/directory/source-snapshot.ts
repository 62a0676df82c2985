import { BridgeError } from '../../domain/errors.js';
import type { Snapshot } from '../../domain/identity.js';
import { quote } from '../../domain/snapshot-problems.js';
import { checkSnapshot, countProblems } from '../../domain/snapshot.js';

/**
 * What a directory returned, checked as any snapshot is (SPEC §5.4). Problems of a file name items by
 * position; those of an LDAP or SCIM directory name them by what the operator can look up (a DN, an
 * upstream id), so `users[7]` becomes `users["uid=ada,ou=people,dc=example,dc=com"]`.
 */

export interface ItemLabels {
  users: readonly (string | undefined)[];
  groups: readonly (string | undefined)[];
}

/** Throws `source_invalid` with the problems when the snapshot is invalid. */
export function validateSourceSnapshot(snapshot: unknown, source: string, labels?: ItemLabels): Snapshot {
  const result = checkSnapshot(snapshot);
  if (result.ok) return result.snapshot;
  const problems = labels === undefined ? result.problems : result.problems.map((p) => relabel(p, labels));
  throw new BridgeError(
    'source_invalid',
    `${source} gave an invalid snapshot: ${countProblems(result.total)}`,
    {
      problems,
    },
  );
}

function relabel(problem: string, labels: ItemLabels): string {
  return problem.replace(/\b(users|groups)\[(\d+)\]/g, (whole, kind: 'users' | 'groups', index: string) => {
    const label = labels[kind][Number(index)];
    return label === undefined ? whole : `${kind}[${quote(label)}]`;
  });
}

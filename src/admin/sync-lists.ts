import type { IdentityKind } from '../domain/identity.js';
import type { ListAction, REFUSALS } from './schemas/plan-inputs.schema.js';
import type { SyncChange } from './schemas/sync-changes.schema.js';

/**
 * The lists a sync's record keeps beside its changes (sync/sync-report.ts), as the changes endpoint
 * pages them: what the run leaves to other inputs (`ownedElsewhere`), and a link-only run's
 * `linked`, `unmatchedInSource`, `unmatchedOnPlatform` and `ambiguous` (SPEC §6).
 */

type LinkList = Exclude<ListAction, 'ownedElsewhere'>;

interface RecordedListItem {
  kind: IdentityKind;
  id: string | null;
  name: string | null;
  owner?: string | null;
  refused?: (typeof REFUSALS)[number];
  targetId?: string;
  candidates?: { targetId: string; by: string; name: string }[];
}

/** The parts of the recorded plan read here. */
export interface RecordedLists {
  ownedElsewhere?: {
    users?: number;
    groups?: number;
    refused?: { users?: number; groups?: number };
    ambiguous?: { users?: number; groups?: number };
    sample?: RecordedListItem[];
  };
  linkOnly?: Partial<Record<LinkList, number>> & { samples?: Partial<Record<LinkList, RecordedListItem[]>> };
}

/** How many identities each list holds in the whole plan (0 for a list the plan has not). */
export function listTotals(plan: RecordedLists): Record<ListAction, number> {
  const owned = plan.ownedElsewhere;
  const link = plan.linkOnly ?? {};
  return {
    ownedElsewhere:
      (owned?.users ?? 0) +
      (owned?.groups ?? 0) +
      (owned?.refused?.users ?? 0) +
      (owned?.refused?.groups ?? 0) +
      (owned?.ambiguous?.users ?? 0) +
      (owned?.ambiguous?.groups ?? 0),
    linked: link.linked ?? 0,
    unmatchedInSource: link.unmatchedInSource ?? 0,
    unmatchedOnPlatform: link.unmatchedOnPlatform ?? 0,
    ambiguous: link.ambiguous ?? 0,
  };
}

/** A list's recorded items as the endpoint answers them: named as the plan recorded them. */
export function listItems(plan: RecordedLists, action: ListAction): SyncChange[] {
  const recorded =
    action === 'ownedElsewhere'
      ? (plan.ownedElsewhere?.sample ?? [])
      : (plan.linkOnly?.samples?.[action] ?? []);
  return (Array.isArray(recorded) ? recorded : []).map((item) => ({
    kind: item.kind,
    id: item.id ?? null,
    action,
    ...(item.targetId ? { targetId: item.targetId } : {}),
    ...(item.kind === 'user' ? { userName: item.name ?? null } : { displayName: item.name ?? null }),
    ...(item.owner === undefined ? {} : { owner: item.owner }),
    ...(item.refused ? { refused: item.refused } : {}),
    ...(item.candidates ? { candidates: item.candidates } : {}),
  }));
}

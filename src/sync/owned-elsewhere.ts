import type { IdentityKind } from '../domain/identity.js';
import type { SyncStore } from '../store/sync.store.js';
import { SAMPLE, type PlanTally, type RefusedItem } from './plan-tally.js';

/** One identity a run leaves to another input, as the sync detail lists it. */
export interface OwnedItem {
  kind: IdentityKind;
  id: string;
  /** The input that owns it (null: not known, e.g. the holder of an account). */
  owner: string | null;
  /** userName / displayName, when known. */
  name: string | null;
  /** A source identity not planned: another input holds it, or it is parked (RefusedItem). */
  refused?: RefusedItem['reason'];
  targetId?: string;
}

/**
 * What a run that replaces one input's identities (SPEC §6, Ownership) leaves to the others: the
 * desired identities of every other input (per kind, and per owner), never planned as removals nor
 * counted against DEPROVISION_LIMIT; and the source's identities another input holds (`refused`).
 * Beside those, the source's identities parked by their own `ambiguous` conflict (two platform
 * accounts fit them; an admin picks one): not planned either, and no other input's (`ambiguous`).
 * `sample`: the refused and ambiguous ones first, then other inputs' identities, SAMPLE in all.
 */
export interface OwnedElsewhere {
  users: number;
  groups: number;
  owners: Record<string, { users: number; groups: number }>;
  refused: { users: number; groups: number };
  ambiguous: { users: number; groups: number };
  sample: OwnedItem[];
}

export async function ownedElsewhere(
  store: SyncStore,
  scope: string,
  tally: PlanTally,
): Promise<OwnedElsewhere> {
  const all = await store.ownerCounts();
  const owners = Object.fromEntries(Object.entries(all).filter(([owner]) => owner !== scope));
  const counts = Object.values(owners);
  const refused: OwnedItem[] = tally.refused.sample.map((r) => ({
    kind: r.kind,
    id: r.id,
    owner: r.owner ?? null,
    name: r.name,
    refused: r.reason,
    ...(r.targetId === undefined ? {} : { targetId: r.targetId }),
  }));
  const others = await store.sampleOwned(Object.keys(owners), SAMPLE - refused.length);
  return {
    users: counts.reduce((sum, c) => sum + c.users, 0),
    groups: counts.reduce((sum, c) => sum + c.groups, 0),
    owners,
    refused: { users: tally.refused.user, groups: tally.refused.group },
    ambiguous: { users: tally.ambiguous.user, groups: tally.ambiguous.group },
    sample: [...refused, ...others],
  };
}

import type { ObservedGroup } from '../domain/group-diff.js';
import type { IdentityKind } from '../domain/identity.js';
import { pickMatch, type Candidate, type Decision } from '../domain/sync-plan.js';
import type { ObservedUser } from '../domain/user-diff.js';
import type { ChunkIdentity } from '../store/desired-state.bulk.js';
import type { ListedResource } from '../store/sync-listing.store.js';
import type { LinkCandidate, LinkTally } from './link-tally.js';
import type { Claims } from './plan-claims.js';
import type { PlanTally } from './plan-tally.js';
import type { SyncPlanWriter } from '../store/sync-plan-writer.js';

export type Observed = ObservedUser | ObservedGroup;

/** A source identity with a desired state (staged or stored), as a chunk of the plan reads it. */
export type Desired = ChunkIdentity & { json: string };

export function desired(identity: ChunkIdentity): identity is Desired {
  return identity.json !== undefined;
}

/** What one identity's decision needs besides its candidates. */
export interface IdentityPlan<R extends Observed> {
  kind: IdentityKind;
  item: Desired;
  /** userName / displayName. */
  name: string;
  /** Candidates in matching order: by recorded target id, externalId, name (sync-listing.store.ts). */
  listed: readonly (ListedResource | undefined)[];
  /**
   * The store would not apply it (heldElsewhere, desired-state.bulk.ts): `parked`, `ambiguous`
   * (parked by its own ambiguous conflict), or the owner of another input's identity that holds its
   * name or externalId.
   */
  held?: string | undefined;
  decide(found: R | undefined): Decision;
}

/** Where a decision goes: the run's scope and mode, its tallies and this chunk's writer and claims. */
export interface DecisionSink {
  /** The input the run writes as; absent: every input's identities are its own. */
  scope: string | undefined;
  tally: PlanTally;
  /** A link-only run's tally. */
  link: LinkTally | undefined;
  writer: SyncPlanWriter;
  claims: Claims;
}

/**
 * One source identity's decision (SPEC §6): none for an identity another input holds — its id
 * (the store refuses the write and records a `same-id` conflict), its name or externalId (the
 * store parks it), or the platform account it matches first (parked with an `account` conflict
 * once written: a sync never adopts another input's account) — nor for one parked already, nor,
 * in a link-only run, for one two unmanaged accounts fit (parked as `ambiguous`). Otherwise the
 * match (the first candidate no match took) and what to change.
 */
export function planIdentity<R extends Observed>(
  sink: DecisionSink,
  input: IdentityPlan<R>,
): Decision | undefined {
  const { kind, item, name, listed, held } = input;
  const { tally, link, writer, claims } = sink;
  if (item.owner !== undefined && sink.scope !== undefined && item.owner !== sink.scope) {
    tally.refusedBy({ kind, id: item.id, name, reason: 'same-id', owner: item.owner });
    return undefined;
  }
  if (held === 'ambiguous') {
    tally.refusedBy({ kind, id: item.id, name, reason: 'ambiguous' });
    return undefined;
  }
  if (held !== undefined) {
    const reason = held === 'parked' ? 'parked' : 'account';
    tally.refusedBy({ kind, id: item.id, name, reason, ...(reason === 'account' ? { owner: held } : {}) });
    return undefined;
  }
  const first = listed.find((c) => c?.elsewhere === true || claims.free(c));
  if (first?.elsewhere) {
    const targetId = first.resource.id;
    tally.refusedBy({ kind, id: item.id, name, reason: 'account', targetId });
    writer.park(kind, item.id, {
      kind: 'account',
      account: { targetId, by: matchedBy(kind, listed, first) },
    });
    return undefined;
  }
  const candidates = link ? ambiguity(kind, listed, claims) : undefined;
  if (link && candidates) {
    for (const c of candidates) claims.taken.add(c.targetId);
    link.add('ambiguous', { kind, id: item.id, name, candidates });
    writer.park(kind, item.id, { kind: 'ambiguous', account: { by: 'externalId', candidates } });
    return undefined;
  }
  const found = pickMatch(listed as (Candidate<R> | undefined)[], claims.taken);
  const decision = input.decide(found);
  tally.decided(kind, decision, name);
  if (decision.change) writer.change(decision.change, item.staged);
  if (decision.adoption) writer.adoption(kind, item.id, decision.adoption.targetId);
  if (link) linked(link, writer, input, decision);
  return decision;
}

/**
 * A link-only run records every match as managed — also one a normal sync would update, which
 * its reconcile run would adopt first — and counts it linked; no match: unmatched in the source.
 */
function linked<R extends Observed>(
  link: LinkTally,
  writer: SyncPlanWriter,
  { kind, item, name }: IdentityPlan<R>,
  decision: Decision,
): void {
  const targetId = decision.matched ?? decision.change?.targetId;
  if (targetId === undefined) {
    link.add('unmatchedInSource', { kind, id: item.id, name });
    return;
  }
  link.add('linked', { kind, id: item.id, name, targetId });
  const recorded = item.known.managed && item.known.targetId === targetId;
  if (!recorded && !decision.adoption) writer.adoption(kind, item.id, targetId);
}

/**
 * Two different accounts fit the identity — one by externalId, another by name — and neither is
 * managed nor matched yet: as the reconciler's look-ups would find them (reconcile/matching.ts).
 */
function ambiguity(
  kind: IdentityKind,
  listed: readonly (ListedResource | undefined)[],
  claims: Claims,
): LinkCandidate[] | undefined {
  const [recorded, byExternalId, byName] = listed;
  if (recorded || !byExternalId || !byName) return undefined;
  if (byExternalId.resource.id === byName.resource.id) return undefined;
  const open = (c: ListedResource) => claims.free(c) && c.managed !== true;
  if (!open(byExternalId) || !open(byName)) return undefined;
  return [
    { targetId: byExternalId.resource.id, by: 'externalId', name: nameOf(byExternalId.resource) },
    {
      targetId: byName.resource.id,
      by: kind === 'user' ? 'userName' : 'displayName',
      name: nameOf(byName.resource),
    },
  ];
}

function matchedBy(kind: IdentityKind, listed: readonly (ListedResource | undefined)[], c: ListedResource) {
  const at = listed.indexOf(c);
  if (at === 0) return 'targetId';
  if (at === 1) return 'externalId';
  return kind === 'user' ? 'userName' : 'displayName';
}

function nameOf(resource: Observed): string {
  return 'userName' in resource ? resource.userName : resource.displayName;
}

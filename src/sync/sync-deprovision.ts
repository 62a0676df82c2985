import type { IdentityKind } from '../domain/identity.js';
import { deprovisionLookup, planDeprovision } from '../domain/sync-plan.js';
import type { NotInSource, WalkPhase } from '../store/sync-run.store.js';
import type { MergeContext } from './plan-source.js';

/**
 * The stored identities of the source that it no longer lists (SPEC §6): desired ones leave the
 * desired state (deleted when the run is applied), and managed ones still on the platform — found
 * by their target id, or a lost create by the externalId it sent — are deprovisioned: users while
 * active (DEPROVISION=deactivate) or at all (delete), groups deleted. Only the identities of the
 * run's input (its scope) are walked: other inputs' are never removed by it (SPEC §6, Ownership).
 * Walked a batch at a time.
 */
export async function planSourceRemovals(ctx: MergeContext, kind: IdentityKind): Promise<void> {
  const { deps, run } = ctx;
  const phases = await phasesToWalk(ctx, kind);
  for await (const { walked, missing } of run.store.missingFromSource(kind, phases)) {
    await run.cancel.check();
    const writer = run.store.planWriter();
    for (const identity of missing) if (identity.desired) writer.gone(kind, identity.id);
    const found = await resourcesOf(ctx, kind, missing);
    missing.forEach((identity, i) => {
      const change = planDeprovision(kind, identity.id, found[i], deps.settings.deprovision);
      if (!change) return;
      ctx.tally.deprovisioned(change);
      writer.change(change, false);
    });
    await writer.flush();
    // The walk holds every id it walks: each counts as read (sync-plan-run.ts, full collections).
    await ctx.onChunk?.(walked, walked);
  }
}

/**
 * Which stored identities to walk. Counts decide what cannot hold a missing one: every desired
 * identity of the run's input was met in the source (the merge counted them), every
 * managed one is desired, nothing is half-created. A count changed meanwhile by another input
 * can only make the walk skip a removal (the next sync makes it), never add one.
 */
async function phasesToWalk(ctx: MergeContext, kind: IdentityKind): Promise<Set<WalkPhase>> {
  const { desired, managed, creating, managedDesired } = await ctx.run.store.removalCounts(kind);
  const phases = new Set<WalkPhase>();
  // Without a source the desired identities are the source: none of them is missing from it.
  if (ctx.run.scope !== undefined && desired !== ctx.storedInSource[kind]) phases.add('all');
  if (managed > managedDesired) phases.add('managed');
  if (creating > 0) phases.add('creating');
  return phases;
}

/** Each identity's resource in the listing, by target id or by the externalId of a lost create. */
async function resourcesOf(ctx: MergeContext, kind: IdentityKind, identities: readonly NotInSource[]) {
  const { listing } = ctx.run.store;
  const lookups = identities.map((identity) => deprovisionLookup(identity.known));
  const byExternal = lookups.flatMap((l) => (l && 'externalId' in l ? [l.externalId] : []));
  const resolved = await listing.byExternalId(kind, byExternal);
  let next = 0;
  const targetIds = lookups.map((l) => (!l ? undefined : 'targetId' in l ? l.targetId : resolved[next++]));
  const wanted = targetIds.filter((t): t is string => t !== undefined);
  const resources = await listing.resources(kind, wanted);
  const byId = new Map(wanted.map((id, i) => [id, resources[i]?.resource]));
  return targetIds.map((t) => (t === undefined ? undefined : byId.get(t)));
}

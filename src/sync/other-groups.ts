import type { ObservedGroup } from '../domain/group-diff.js';
import type { IdentityKey } from '../domain/identity.js';
import type { FullSyncDeps } from './full-sync.context.js';
import type { RunContext } from './sync-read.js';

/**
 * Other inputs' groups, once a run that replaces one input's identities has applied its users (SPEC
 * §6, Ownership): their members may name users this run just created or adopted, which only now have
 * a platform account. Each is reconciled against what the listing showed of it, so a group already
 * right costs no request; one with no platform id yet looks itself up, as any run does.
 */
export async function reconcileOtherGroups(
  deps: FullSyncDeps,
  run: RunContext,
  observedAt: number,
): Promise<void> {
  if (run.scope === undefined) return;
  for await (const groups of deps.store.groupsOfOtherInputs(run.scope)) {
    const known = groups.flatMap((g) => (g.targetId === undefined ? [] : [g.targetId]));
    const listed = await run.store.listing.resources('group', known);
    const seen = new Map(
      known.map((t, i) => [t, (listed[i]?.resource as ObservedGroup | undefined) ?? null]),
    );
    const targetOf = new Map(groups.map((g) => [g.id, g.targetId]));
    const keys: IdentityKey[] = groups.map((g) => ({ kind: 'group', id: g.id }));
    await deps.jobs.enqueue(keys, (key) => {
      const target = targetOf.get(key.id);
      return target === undefined ? {} : { observation: { observedAt, resource: seen.get(target) ?? null } };
    });
  }
}

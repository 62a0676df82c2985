import type { ObservedGroup } from '../domain/group-diff.js';
import type { IdentityKey } from '../domain/identity.js';
import { storeCall } from '../store/redis-errors.js';
import type { FullSyncDeps } from './full-sync.context.js';
import type { RunContext } from './sync-read.js';

const BATCH = 500;

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
  const { scope } = run;
  if (scope === undefined) return;
  const owners = await storeCall(() => deps.redis.smembers(deps.keys.owners()));
  for (const owner of owners.filter((o) => o !== scope)) {
    const key = deps.keys.owned('group', owner);
    for (let start = 0; ; start += BATCH) {
      const ids = await storeCall(() => deps.redis.zrange(key, start, start + BATCH - 1));
      if (ids.length > 0) await enqueueObserved(deps, run, ids, observedAt);
      if (ids.length < BATCH) break;
    }
  }
}

async function enqueueObserved(
  deps: FullSyncDeps,
  run: RunContext,
  ids: readonly string[],
  observedAt: number,
): Promise<void> {
  const targetIds = await storeCall(() =>
    Promise.all(ids.map((id) => deps.redis.hget(deps.keys.identity('group', id), 't'))),
  );
  const known = targetIds.filter((t): t is string => typeof t === 'string');
  const listed = await run.listing.resources('group', known);
  const seen = new Map(known.map((t, i) => [t, (listed[i]?.resource as ObservedGroup | undefined) ?? null]));
  const keys: IdentityKey[] = ids.map((id) => ({ kind: 'group', id }));
  const targetOf = new Map(ids.map((id, i) => [id, targetIds[i] ?? undefined]));
  await deps.jobs.enqueue(keys, (key) => {
    const target = targetOf.get(key.id);
    return target === undefined ? {} : { observation: { observedAt, resource: seen.get(target) ?? null } };
  });
}

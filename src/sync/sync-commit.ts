import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { DesiredChange, Owner } from '../domain/desired-change.js';
import type { IdentityKind } from '../domain/identity.js';
import { collectGarbage } from '../ops/memory.js';
import { slices } from '../store/script-slices.js';
import type { StagedItem } from '../store/sync-run.store.js';
import type { FullSyncDeps } from './full-sync.context.js';
import type { RunContext } from './sync-read.js';

/** Batches between full collections while writing: each leaves garbage V8 would let pile up. */
const GC_EVERY = 20;

/**
 * Writes what the run read of its source to the desired state, a batch at a time: the identities
 * it changes (staged), with no dirty mark for those the plan found already matching on the
 * platform (no reconcile run is owed for them: the sweep would otherwise read each one back) — nor
 * for any in a run that sends nothing to the platform (link-only); then deletes the identities the
 * source no longer lists (groups first), records the plan's adoptions and parks the identities the
 * plan could not match (another input's account, or an ambiguous one), and marks clean the users
 * the plan found matching whose desired state it just wrote. Written as the run's input
 * (SPEC §6, Ownership): what another input owns is refused by the store. Every write is
 * idempotent: after a crash, the sync plans again and writes the rest.
 */
export async function commitSource(deps: FullSyncDeps, run: RunContext): Promise<void> {
  const owner = run.scope ?? deps.store.defaultOwner;
  for (const kind of ['user', 'group'] as const) await commitStaged(deps, run, kind, owner);
  await deleteGone(deps, run, owner);
  // About 5 commands an adoption.
  for await (const adoptions of run.store.adoptions())
    await Promise.all(slices(adoptions, () => 5).map((slice) => deps.store.adopt(slice)));
  for await (const parkings of run.store.parkings())
    for (const parking of parkings) await deps.store.park(parking);
  await run.store.markWrittenClean();
}

async function deleteGone(deps: FullSyncDeps, run: RunContext, owner: Owner): Promise<void> {
  const signal = { source: 'snapshot' as const, detail: 'missing from the directory' };
  for await (const ids of run.store.gone('group'))
    await write(
      deps,
      ids.map((id): DesiredChange => ({ op: 'deleteGroup', id, signal })),
      owner,
    );
  for await (const ids of run.store.gone('user'))
    await write(
      deps,
      ids.map((id): DesiredChange => ({ op: 'deleteUser', id, signal })),
      owner,
    );
}

/**
 * Writes a batch as several calls of the store's write script, sent at once (store/script-slices.ts):
 * weighed at 20 commands an identity and 3 more a group member, though a new user takes 14 and a
 * group's members a few commands in all (a call of 50 users holds Redis about 2 ms). Each call is
 * whole on its own; the run's writes are idempotent, so a run stopped between two is written again
 * by the next.
 */
async function write(deps: FullSyncDeps, changes: readonly DesiredChange[], owner: Owner): Promise<void> {
  const weight = (change: DesiredChange) =>
    20 + (change.op === 'upsertGroup' ? 3 * (change.group.members?.length ?? 0) : 0);
  await Promise.all(slices(changes, weight).map((slice) => deps.store.writeDesired(slice, owner)));
}

/**
 * No history entry per upsert: a directory of 100,000 would write 100,000 of them at each change
 * of the directory, and the sync's own record says what it read. Deletions are noted.
 */
async function commitStaged(deps: FullSyncDeps, run: RunContext, kind: IdentityKind, owner: Owner) {
  let batches = 0;
  for await (const items of run.store.staged(kind)) {
    if (++batches % GC_EVERY === 0) collectGarbage();
    const changes = items.map((item) => stagedChange(kind, item, !run.mode.sendsToPlatform || !item.planned));
    await write(deps, changes, owner);
  }
}

function stagedChange(kind: IdentityKind, item: StagedItem, clean: boolean): DesiredChange {
  const { id, value } = item;
  if (kind === 'user') return { op: 'upsertUser', user: parseStoredUser(id, value), mode: 'force', clean };
  const cut = value.indexOf('\n');
  const members = cut === -1 || cut === value.length - 1 ? [] : value.slice(cut + 1).split('\n');
  const group = parseStoredGroup(id, cut === -1 ? value : value.slice(0, cut), members);
  return { op: 'upsertGroup', group, mode: 'force', clean };
}

import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { DesiredChange } from '../domain/desired-change.js';
import type { IdentityKind } from '../domain/identity.js';
import type { PlannedChange } from '../domain/sync-plan.js';
import { collectGarbage } from '../ops/memory.js';
import { storeCall } from '../store/redis-errors.js';
import type { FullSyncDeps } from './full-sync.context.js';
import type { ParkConflict } from './plan-writer.js';
import type { RunContext } from './sync-read.js';
import type { StagePlan } from './sync-stage.js';

const BATCH = 500;
/** Batches between full collections while writing: each leaves garbage V8 would let pile up. */
const GC_EVERY = 20;

/**
 * Writes what the run read of its source to the desired state, a batch at a time: the identities
 * it changes (staged), with no dirty mark for those the plan found already matching on the
 * platform (no reconcile run is owed for them: the sweep would otherwise read each one back) — nor
 * for any in a link-only run, which writes nothing to the platform: a normal sync applies them;
 * then deletes the identities the source no longer lists (groups first), records the plan's
 * adoptions and parks the identities the plan could not match (another input's account, or an
 * ambiguous one). Every write is idempotent: after a crash, the sync plans again and writes the rest.
 */
export async function commitSource(deps: FullSyncDeps, run: RunContext): Promise<void> {
  for (const kind of ['user', 'group'] as const) await commitStaged(deps, run, kind);
  await deleteGone(deps, run);
  await recordAdoptions(deps, run);
  await parkUnmatched(deps, run);
}

async function deleteGone(deps: FullSyncDeps, run: RunContext): Promise<void> {
  const signal = { source: 'snapshot' as const, detail: 'missing from the directory' };
  // Written as the directory (SPEC §6, Ownership): what another input owns is refused by the store.
  const owner = deps.desired.defaultOwner;
  for await (const ids of members(deps, run.staging.key('gone:g')))
    await deps.desired.apply(
      ids.map((id): DesiredChange => ({ op: 'deleteGroup', id, signal })),
      { forSync: true, owner },
    );
  for await (const ids of members(deps, run.staging.key('gone:u')))
    await deps.desired.apply(
      ids.map((id): DesiredChange => ({ op: 'deleteUser', id, signal })),
      { forSync: true, owner },
    );
}

async function recordAdoptions(deps: FullSyncDeps, run: RunContext): Promise<void> {
  for await (const lines of listed(deps, run.staging.key('adopt'))) {
    const adoptions = lines.map((line) => {
      const [kind, id, targetId] = line.split('\n') as [IdentityKind, string, string];
      return { kind, id, targetId };
    });
    await deps.state.adoptBulk(adoptions);
  }
}

/**
 * Parks, with a conflict for an admin, the identities whose platform account another input's
 * identity manages (its holder named), and a link-only run's ambiguous ones (SPEC §6, Ownership).
 */
async function parkUnmatched(deps: FullSyncDeps, run: RunContext): Promise<void> {
  for await (const lines of listed(deps, run.staging.key('park'))) {
    for (const line of lines) {
      const [kind, id, json] = line.split('\n') as [IdentityKind, string, string];
      const conflict = JSON.parse(json) as ParkConflict;
      const { targetId } = conflict.account;
      const holder = targetId === undefined ? undefined : await deps.state.sourceIdForTarget(kind, targetId);
      await deps.state.park(kind, id, { ...conflict, ...(holder === undefined ? {} : { holder }) });
    }
  }
}

async function* listed(deps: FullSyncDeps, key: string): AsyncGenerator<string[]> {
  for (let start = 0; ; start += BATCH) {
    const lines = await storeCall(() => deps.redis.lrange(key, start, start + BATCH - 1));
    if (lines.length > 0) yield lines;
    if (lines.length < BATCH) return;
  }
}

/**
 * No history entry per upsert: a directory of 100,000 would write 100,000 of them at each change
 * of the directory, and the sync's own record says what it read. Deletions are noted.
 */
async function commitStaged(deps: FullSyncDeps, run: RunContext, kind: IdentityKind): Promise<void> {
  const k = kind === 'user' ? 'u' : 'g';
  const docs = run.staging.key(`src:${k}:docs`);
  const planned = run.staging.key(`planned:${k}`);
  let cursor = '0';
  let batches = 0;
  do {
    if (++batches % GC_EVERY === 0) collectGarbage();
    const [next, flat] = await storeCall(() => deps.redis.hscan(docs, cursor, 'COUNT', BATCH));
    cursor = next;
    const ids = flat.filter((_, i) => i % 2 === 0);
    if (ids.length === 0) continue;
    const dirty = await storeCall(() => deps.redis.smismember(planned, ...ids));
    const changes = ids.map((id, n): DesiredChange => {
      const value = flat[n * 2 + 1] ?? '';
      const clean = run.linkOnly || dirty[n] !== 1;
      if (kind === 'user')
        return { op: 'upsertUser', user: parseStoredUser(id, value), mode: 'force', clean };
      const cut = value.indexOf('\n');
      const members = cut === -1 || cut === value.length - 1 ? [] : value.slice(cut + 1).split('\n');
      const group = parseStoredGroup(id, cut === -1 ? value : value.slice(0, cut), members);
      return { op: 'upsertGroup', group, mode: 'force', clean };
    });
    await deps.desired.apply(changes, { forSync: true, owner: deps.desired.defaultOwner });
  } while (cursor !== '0');
}

async function* members(deps: FullSyncDeps, key: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, ids] = await storeCall(() => deps.redis.sscan(key, cursor, 'COUNT', BATCH));
    cursor = next;
    if (ids.length > 0) yield ids;
  } while (cursor !== '0');
}

/** The run's planned changes of a kind, as its stage reads them (plan:K, in plan order). */
export async function stagePlan(deps: FullSyncDeps, run: RunContext, kind: IdentityKind): Promise<StagePlan> {
  const key = run.staging.key(kind === 'user' ? 'plan:u' : 'plan:g');
  const total = await storeCall(() => deps.redis.llen(key));
  return {
    total,
    read: async (start, count) => {
      const lines = await storeCall(() => deps.redis.lrange(key, start, start + count - 1));
      return lines.map((line) => JSON.parse(line) as PlannedChange);
    },
  };
}

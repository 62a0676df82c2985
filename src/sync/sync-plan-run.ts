import type { ObservedUser } from '../domain/user-diff.js';
import { collectGarbage } from '../ops/memory.js';
import { progress, type FullSyncDeps } from './full-sync.context.js';
import { LINK_SAMPLE, LinkTally } from './link-tally.js';
import { ownedElsewhere, type OwnedElsewhere } from './owned-elsewhere.js';
import { PlanTally } from './plan-tally.js';
import { planSourceRemovals } from './sync-deprovision.js';
import { groupRules, userRules } from './plan-kinds.js';
import { PLAN_CHUNK, planSource, type MergeContext } from './plan-source.js';
import type { ReadResult, RunContext } from './sync-read.js';
import type { MemberNames } from './sync-report.js';

export interface Planned {
  read: ReadResult;
  tally: PlanTally;
  /** A link-only run's lists (SPEC §6). */
  link?: LinkTally;
  /** What a run that replaces one input's identities leaves to the others (SPEC §6, Ownership). */
  ownedElsewhere?: OwnedElsewhere;
  /** Names of the members the report's membership sample takes out of groups. */
  memberNames: MemberNames;
}

const PROGRESS_EVERY_MS = 250;
/**
 * Identities read between full collections: each chunk leaves garbage for those it read, and V8
 * would let it pile up (RSS grows). Identities found clean are not read: a sync that finds nearly
 * all of them clean allocates little, and a forced collection of the whole heap would cost more
 * than it frees.
 */
const GC_EVERY_READ = 10 * PLAN_CHUNK;

/**
 * The plan of a run (SPEC §6), in the order the runs apply it: the source's users, the users it no
 * longer lists, then its groups (their members compared through the users' target ids, this plan's
 * matches included) and the groups it no longer lists. Holds counts and samples only.
 */
export async function planRun(deps: FullSyncDeps, run: RunContext, read: ReadResult): Promise<Planned> {
  const tally = new PlanTally();
  const link = run.mode.links ? new LinkTally() : undefined;
  let planned = 0;
  let readSinceGc = 0;
  let reported = 0;
  const ctx: MergeContext = {
    deps,
    run,
    source: read.source,
    tally,
    ...(link ? { link } : {}),
    claimedUnmanaged: { user: 0, group: 0 },
    storedInSource: { user: 0, group: 0 },
    onChunk: async (count, read) => {
      planned += count;
      readSinceGc += read;
      if (readSinceGc >= GC_EVERY_READ) {
        readSinceGc = 0;
        collectGarbage();
      }
      if (Date.now() - reported < PROGRESS_EVERY_MS) return;
      reported = Date.now();
      await progress(deps, run.syncId, 'planning', planned, 0);
    },
  };
  await planSource(ctx, userRules);
  // A link-only run removes nothing.
  if (run.mode.removes) await planSourceRemovals(ctx, 'user');
  // Listed users matched by no desired identity and not managed (for any input): left alone.
  const { listed } = read;
  tally.unmanagedUsers = Math.max(0, listed.users - listed.managedUsers - ctx.claimedUnmanaged.user);
  await planSource(ctx, groupRules);
  if (run.mode.removes) await planSourceRemovals(ctx, 'group');
  if (link) await unmatchedOnPlatform(run, read, ctx.claimedUnmanaged, link);
  return {
    read,
    tally,
    ...(link ? { link } : {}),
    ...(run.scope === undefined
      ? {}
      : { ownedElsewhere: await ownedElsewhere(deps.store, run.scope, tally) }),
    memberNames: await nameRemovedMembers(deps, run, tally),
  };
}

/** The accounts no match claimed and no identity manages: counted, and the first ones named. */
async function unmatchedOnPlatform(
  run: RunContext,
  read: ReadResult,
  claimed: MergeContext['claimedUnmanaged'],
  link: LinkTally,
): Promise<void> {
  const { listed } = read;
  const counts = {
    user: Math.max(0, listed.users - listed.managedUsers - claimed.user),
    group: Math.max(0, listed.groups - listed.managedGroups - claimed.group),
  };
  for (const kind of ['user', 'group'] as const) {
    const named = await run.store.listing.unclaimed(
      kind,
      Math.max(0, LINK_SAMPLE - link.total('unmatchedOnPlatform')),
    );
    for (const resource of named) {
      const name = 'userName' in resource ? resource.userName : resource.displayName;
      link.add('unmatchedOnPlatform', { kind, id: null, name, targetId: resource.id });
    }
    link.addCount('unmatchedOnPlatform', kind, Math.max(0, counts[kind] - named.length));
  }
}

/** The source id and userName of each member the membership sample removes (a few hundred at most). */
async function nameRemovedMembers(
  deps: FullSyncDeps,
  run: RunContext,
  tally: PlanTally,
): Promise<MemberNames> {
  const targetIds = [...new Set(tally.memberships.sample.flatMap((g) => g.removed))];
  const names: MemberNames = new Map();
  if (targetIds.length === 0) return names;
  const [ids, listed] = await Promise.all([
    deps.store.sourceIdsOf('user', targetIds),
    run.store.listing.resources('user', targetIds),
  ]);
  targetIds.forEach((targetId, i) => {
    const id = ids.get(targetId);
    const userName = (listed[i]?.resource as ObservedUser | undefined)?.userName;
    names.set(targetId, {
      ...(id === undefined ? {} : { id }),
      ...(userName === undefined ? {} : { userName }),
    });
  });
  return names;
}

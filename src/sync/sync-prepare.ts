import { canonicalGroupJson, canonicalUserJson } from '../domain/canonical.js';
import type { DesiredGroup, DesiredUser, Snapshot } from '../domain/identity.js';
import { planSync } from '../domain/sync-plan.js';
import { loadAllIdentities, type StoredIdentity } from '../store/desired-state.bulk.js';
import type { DesiredChange } from '../domain/desired-change.js';
import { BridgeError } from '../domain/errors.js';
import { collectGarbage } from '../ops/memory.js';
import { listAll } from '../platform/list-all.js';
import { newTrace, type RequestTrace } from '../platform/scim-http.js';
import {
  checkCancel,
  progress,
  type DesiredChanges,
  type FullSyncDeps,
  type PhaseTimes,
  type Prepared,
} from './full-sync.context.js';
import { refuseEmptySource, type SourceCount } from './sync-guards.js';
import type { SyncRecord } from './sync-record.store.js';

/** The run being prepared: its record, and whether it is the approved continuation of a held one. */
export interface PrepareRun {
  record: SyncRecord;
  approved: boolean;
}

/**
 * Reads the source and the stored state, lists the target and plans (SPEC §6). Writes nothing but
 * the source's name and user count on the sync's record. An empty source is refused here, before
 * the listing (unless the request allowed it, or this is an approved run).
 */
export async function prepare(
  deps: FullSyncDeps,
  syncId: string,
  times: PhaseTimes,
  run: PrepareRun,
): Promise<Prepared> {
  times.start('readingSource');
  await progress(deps, syncId, 'reading-source', 0, 1);
  const { snapshot, source, fromDirectory } = await readDesired(deps, syncId, run);
  await deps.records.update(syncId, {
    source: source.name,
    ...(source.users === undefined ? {} : { sourceUsers: source.users }),
  });
  const parse = { parse: snapshot === undefined };
  const [users, groups] = await Promise.all([
    loadAllIdentities(deps.redis, deps.keys, 'user', parse),
    loadAllIdentities(deps.redis, deps.keys, 'group', parse),
  ]);
  // Users the bridge manages and still wants: deactivated ones no longer count (SPEC §6, Guards).
  const managedUsers = [...users.values()].filter((u) => u.managed && u.json !== undefined).length;
  if (!run.approved) refuseEmptySource(source, managedUsers, run.record.allowEmpty);
  const desired = snapshot
    ? desiredChanges(snapshot, users, groups)
    : { upserts: [], deleteUsers: [], deleteGroups: [] };
  // From here on, planning needs only target ids and managed flags of what is stored: with a
  // snapshot, the stored JSON (tens of megabytes for 100,000 identities) can go before the listing.
  if (snapshot) {
    forgetDesired(users);
    forgetDesired(groups);
  }
  collectGarbage();
  await checkCancel(deps, syncId);
  times.start('listingTarget');
  const observedAt = deps.records.clock.now();
  const trace = newTrace();
  const [targetUsers, targetGroups] = await listTarget(deps, syncId, trace);
  await deps.health?.succeeded();
  collectGarbage();
  await checkCancel(deps, syncId);
  times.start('planning');
  await progress(deps, syncId, 'planning', 0, 1);
  const plan = planSync({
    users: snapshot ? snapshot.users : desiredOf(users),
    groups: snapshot ? snapshot.groups : desiredOf(groups),
    knownUsers: users,
    knownGroups: groups,
    targetUsers,
    targetGroups,
    deprovision: deps.settings.deprovision,
  });
  return {
    plan,
    desired,
    observedAt,
    trace,
    source,
    ...(fromDirectory && snapshot ? { sourceSnapshot: snapshot } : {}),
    managedUsers,
  };
}

/**
 * The snapshot the sync reconciles: the one stored with it (pushed with the request, or kept by a
 * held sync), else what the directory source returns now; none when there is no source.
 */
async function readDesired(
  deps: FullSyncDeps,
  syncId: string,
  run: PrepareRun,
): Promise<{ snapshot?: Snapshot; source: SourceCount; fromDirectory?: true }> {
  const stored = await deps.records.snapshotPayload(syncId);
  const recorded = run.record.source;
  if (stored) {
    const snapshot = JSON.parse(stored) as Snapshot;
    return { snapshot, source: { name: recorded ?? 'snapshot', users: snapshot.users.length } };
  }
  if (run.approved && recorded && recorded !== 'none') {
    // Never fall back to something other than what was approved.
    throw new BridgeError(
      'interrupted',
      `The snapshot sync ${syncId} held is gone from Redis; start a new sync`,
    );
  }
  if (!deps.readSource) return { source: { name: 'none' } };
  const snapshot = await deps.readSource();
  const source = { name: deps.settings.sourceName, users: snapshot.users.length };
  return { snapshot, source, fromDirectory: true };
}

async function listTarget(deps: FullSyncDeps, syncId: string, trace: RequestTrace) {
  const settings = await deps.target.serviceProviderConfig(trace);
  const pageSize = settings.maxResults ?? 1000;
  let done = 0;
  let expected = 2;
  const report = () => void progress(deps, syncId, 'listing-target', ++done, expected).catch(() => undefined);
  const options = { pageSize, concurrency: deps.settings.concurrency, trace };
  const users = await listAll(deps.target, 'user', {
    ...options,
    onPage: (_, e) => ((expected = e + 1), report()),
  });
  const base = done;
  const groups = await listAll(deps.target, 'group', {
    ...options,
    onPage: (_, e) => ((expected = base + e), report()),
  });
  return [users, groups] as const;
}

/** The snapshot's difference from the stored desired state: only what changed is written. */
function desiredChanges(
  snapshot: Snapshot,
  users: Map<string, StoredIdentity<DesiredUser>>,
  groups: Map<string, StoredIdentity<DesiredGroup>>,
): DesiredChanges {
  const upserts: DesiredChange[] = [];
  // No history entry per upsert: a directory of 100,000 would write 100,000 of them at each change
  // of the directory, and the sync's own record says what it read. Deletions are noted.
  for (const user of snapshot.users) {
    if (users.get(user.id)?.json !== canonicalUserJson(user))
      upserts.push({ op: 'upsertUser', user, mode: 'force' });
  }
  for (const group of snapshot.groups) {
    const stored = groups.get(group.id);
    const same = stored?.json === canonicalGroupJson(group) && sameMembers(stored.members, group.members);
    if (!same) upserts.push({ op: 'upsertGroup', group, mode: 'force' });
  }
  const inUsers = new Set(snapshot.users.map((u) => u.id));
  const inGroups = new Set(snapshot.groups.map((g) => g.id));
  const deleteUsers = [...users]
    .filter(([id, s]) => s.json !== undefined && !inUsers.has(id))
    .map(([id]) => id);
  const deleteGroups = [...groups]
    .filter(([id, s]) => s.json !== undefined && !inGroups.has(id))
    .map(([id]) => id);
  return { upserts, deleteUsers, deleteGroups };
}

/** Keeps of each stored identity what planning reads: its target id, managed flag, lost create. */
function forgetDesired<D>(stored: Map<string, StoredIdentity<D>>): void {
  for (const [id, { targetId, managed, pendingCreate }] of stored) {
    stored.set(id, {
      managed,
      ...(targetId === undefined ? {} : { targetId }),
      ...(pendingCreate === undefined ? {} : { pendingCreate }),
    });
  }
}

function sameMembers(a: readonly string[] | undefined, b: readonly string[]): boolean {
  if (!a || a.length !== new Set(b).size) return false;
  const set = new Set(a);
  return b.every((m) => set.has(m));
}

function desiredOf<D>(map: Map<string, StoredIdentity<D>>): D[] {
  return [...map.values()].flatMap((s) => (s.desired ? [s.desired] : []));
}

import { formatDeprovisionLimit, type DeprovisionLimit } from '../config/schema.js';
import type { DesiredChange } from '../domain/desired-change.js';
import type { SyncStore } from '../store/sync.store.js';
import { SAMPLE } from './plan-tally.js';

/** What a delta changes, by kind: upserts, deletions, membership changes. */
export function deltaCounts(changes: readonly DesiredChange[]) {
  const count = (...ops: DesiredChange['op'][]) => changes.filter((c) => ops.includes(c.op)).length;
  return {
    changes: changes.length,
    users: { upserted: count('upsertUser'), deleted: count('deleteUser') },
    groups: { upserted: count('upsertGroup'), deleted: count('deleteGroup') },
    memberships: count('addMembers', 'removeMembers'),
  };
}

export interface HeldDeltaFacts {
  owner: string;
  sourceName: string;
  changes: readonly DesiredChange[];
  /** Users it removes that the input has now. */
  removals: number;
  /** Users removed by the input's deltas over the window before it. */
  within: number;
  limit: number;
  setting: DeprovisionLimit;
  shrinkLimit: number;
}

/**
 * A held delta as GET /admin/sync/{jobId} shows it, in the terms of a full sync's plan: what it
 * would create, update and remove per kind, the users and groups it would remove by name, and the
 * guard it trips — DEPROVISION_LIMIT over the removals of the last 24 hours.
 */
export async function deltaPlan(store: SyncStore, delta: HeldDeltaFacts) {
  const users = await kindCounts(store, delta, 'user');
  const groups = await kindCounts(store, delta, 'group');
  const total = (k: keyof typeof users) => users[k] + groups[k];
  return {
    create: total('create'),
    update: total('update'),
    deprovision: total('deprovision'),
    unchanged: 0,
    users,
    groups,
    deprovisionLimit: delta.limit,
    deprovisionLimitSetting: formatDeprovisionLimit(delta.setting),
    held: true,
    holdReasons: ['deprovision-limit' as const],
    source: { name: delta.sourceName, owner: delta.owner, shrinkLimitPercent: delta.shrinkLimit },
    removals: await removals(store, delta),
    delta: { ...deltaCounts(delta.changes), removedWithin24h: delta.within },
  };
}

/** Upserts of identities the input has are updates, of others creations; deletions are removals. */
async function kindCounts(store: SyncStore, delta: HeldDeltaFacts, kind: 'user' | 'group') {
  const upsert = kind === 'user' ? 'upsertUser' : 'upsertGroup';
  const ids = delta.changes.flatMap((c) =>
    c.op === 'upsertUser' && upsert === c.op
      ? [c.user.id]
      : c.op === 'upsertGroup' && upsert === c.op
        ? [c.group.id]
        : [],
  );
  const known = (await store.ownedBy(kind, delta.owner, ids)).filter(Boolean).length;
  const deleted = delta.changes.filter(
    (c) => c.op === (kind === 'user' ? 'deleteUser' : 'deleteGroup'),
  ).length;
  return {
    create: ids.length - known,
    update: known,
    deprovision: kind === 'user' ? delta.removals : deleted,
    unchanged: 0,
  };
}

async function removals(store: SyncStore, delta: HeldDeltaFacts) {
  const idsOf = (op: 'deleteUser' | 'deleteGroup') =>
    delta.changes.flatMap((c) => (c.op === op ? [c.id] : [])).slice(0, SAMPLE);
  const [userIds, groupIds] = [idsOf('deleteUser'), idsOf('deleteGroup')];
  const [userNames, groupNames] = await Promise.all([
    store.names('user', userIds),
    store.names('group', groupIds),
  ]);
  return {
    users: {
      total: delta.removals,
      sample: userIds.flatMap((id) =>
        userNames.has(id) ? [{ id, userName: userNames.get(id) ?? null }] : [],
      ),
    },
    groups: {
      total: groupNames.size,
      sample: groupIds.flatMap((id) =>
        groupNames.has(id) ? [{ id, displayName: groupNames.get(id) ?? null }] : [],
      ),
    },
    memberships: { total: 0, groups: 0, sample: [] },
  };
}

/** A held delta's summary once approved and applied: the desired-state changes it made. */
export function deltaSummary(changes: readonly DesiredChange[], removals: number, durationMs: number) {
  const counts = deltaCounts(changes);
  return {
    created: 0,
    updated: counts.users.upserted + counts.groups.upserted,
    deprovisioned: removals,
    unchanged: 0,
    failed: 0,
    requests: { total: 0 },
    durationMs,
    delta: counts,
  };
}

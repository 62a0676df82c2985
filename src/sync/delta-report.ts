import { formatDeprovisionLimit, type DeprovisionLimit } from '../config/schema.js';
import type { DesiredChange } from '../domain/desired-change.js';
import type { SyncStore } from '../store/sync.store.js';
import { SAMPLE } from './plan-tally.js';

/** What a delta changes, by kind: upserts, deletions, membership changes. */
function counts(changes: readonly DesiredChange[]) {
  const count = (...ops: DesiredChange['op'][]) => changes.filter((c) => ops.includes(c.op)).length;
  return {
    users: { upserted: count('upsertUser'), deleted: count('deleteUser') },
    groups: { upserted: count('upsertGroup'), deleted: count('deleteGroup') },
    memberships: count('addMembers', 'removeMembers'),
  };
}

/**
 * A held delta as GET /admin/sync/{jobId} shows it: what it would change, the users it would remove
 * by name, and the guard it trips — DEPROVISION_LIMIT over the removals of the last 24 hours.
 */
export async function deltaPlan(
  store: SyncStore,
  delta: {
    owner: string;
    sourceName: string;
    changes: readonly DesiredChange[];
    removals: number;
    within: number;
    limit: number;
    setting: DeprovisionLimit;
  },
) {
  const deleted = delta.changes.flatMap((c) => (c.op === 'deleteUser' ? [c.id] : [])).slice(0, SAMPLE);
  const names = await store.names('user', deleted);
  const groups = delta.changes.flatMap((c) => (c.op === 'deleteGroup' ? [c.id] : [])).slice(0, SAMPLE);
  const groupNames = await store.names('group', groups);
  const { users, groups: groupCounts, memberships } = counts(delta.changes);
  return {
    delta: { changes: delta.changes.length, ...counts(delta.changes), removedWithin24h: delta.within },
    deprovision: delta.removals,
    users: { deprovision: delta.removals, update: users.upserted },
    groups: { deprovision: groupCounts.deleted, update: groupCounts.upserted },
    deprovisionLimit: delta.limit,
    deprovisionLimitSetting: formatDeprovisionLimit(delta.setting),
    held: true,
    holdReasons: ['deprovision-limit'],
    source: { name: delta.sourceName, owner: delta.owner },
    removals: {
      users: {
        total: delta.removals,
        sample: deleted.map((id) => ({ id, userName: names.get(id) ?? null })),
      },
      groups: {
        total: groupCounts.deleted,
        sample: groups.map((id) => ({ id, displayName: groupNames.get(id) ?? null })),
      },
      memberships: { total: memberships, groups: 0, sample: [] },
    },
  };
}

/** A delta's summary once applied (approved). */
export function deltaSummary(changes: readonly DesiredChange[], removals: number, durationMs: number) {
  return { delta: counts(changes), deprovisioned: removals, durationMs };
}

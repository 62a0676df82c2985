import { z } from 'zod';
import { answer, count, counts, text, time } from './shapes.js';
import { SyncView } from './sync.schema.js';

/** GET /admin/status: is it healthy, what is queued, what did the last sync do (SPEC §4). */

export const TargetHealth = z.strictObject({
  state: z.enum(['reachable', 'rate-limited', 'auth-failed', 'unavailable']),
  since: time().nullable().meta({ description: 'When the state last changed; null if never recorded.' }),
  detail: text().nullable(),
  pausedForMs: count().meta({ description: 'Processing is paused for this long still (back-off).' }),
});
export type TargetHealth = z.infer<typeof TargetHealth>;

/** Jobs by state in one queue. */
export const QueueCounts = answer(
  'QueueCounts',
  counts(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed']),
);

export const IdentityCounts = counts(['desired', 'managed', 'deprovisioned']);
export type IdentityCounts = z.infer<typeof IdentityCounts>;

export const Status = answer(
  'Status',
  z.strictObject({
    status: z.enum(['ok', 'degraded']).meta({ description: 'degraded while the target is not reachable.' }),
    target: TargetHealth,
    queues: z
      .object({ reconcile: QueueCounts, sync: QueueCounts })
      .catchall(QueueCounts)
      .meta({ description: 'Jobs by state per queue: reconcile, sync, and okta-events when in use.' }),
    identities: z.strictObject({ users: IdentityCounts, groups: IdentityCounts }).meta({
      description:
        'managed: created or adopted on the platform and still desired; deprovisioned: managed but no longer desired (deactivated on the platform, or about to be deprovisioned).',
    }),
    failures: count().meta({ description: 'Identities in permanent failure.' }),
    pending: count().meta({ description: 'Identities with a change not reconciled yet.' }),
    conflicts: count().meta({ description: 'Open conflicts between inputs (GET /admin/conflicts).' }),
    owners: z.record(text(), counts(['users', 'groups'])).meta({
      description: 'Desired identities per owning input (scim, events, okta, directory:<name>).',
    }),
    activeSync: SyncView.nullable(),
    lastSync: SyncView.nullable(),
    lastFullSync: SyncView.nullable().meta({ description: 'Last completed sync that was not a dry run.' }),
  }),
);
export type Status = z.infer<typeof Status>;

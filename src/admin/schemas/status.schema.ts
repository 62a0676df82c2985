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

export const InputStatus = answer(
  'InputStatus',
  z.strictObject({
    input: text().meta({ description: 'The owner name: scim, events, okta, directory:<name>.' }),
    kind: text().meta({ description: 'Its kind: scim, events, okta, or directory (see fullRead.source).' }),
    state: z.enum(['ok', 'refused', 'failing', 'disabled']).meta({
      description:
        'refused: its source refused its credential at the last read (a wrong or expired secret, a missing permission: lastError says which); failing: its last reads of its source failed (3 in a row); disabled: not configured.',
    }),
    detail: text().nullable(),
    push: z.strictObject({ path: text(), enabled: z.boolean() }).nullable().meta({
      description: 'Where it takes pushes (SCIM, events, hooks), and whether its secret is set.',
    }),
    readByDefault: z.boolean().meta({
      description:
        'A full sync that names no input reads this one (the directory the environment configures).',
    }),
    fullRead: z
      .strictObject({ source: text() })
      .nullable()
      .meta({ description: 'It can be read in full (POST /admin/sync {"input"}): its source.' }),
    pull: z
      .strictObject({ read: z.enum(['delta']), everySeconds: count(), watermarkKind: text() })
      .nullable()
      .meta({
        description: 'Its recurring change read: what changed since its watermark, at its own cadence.',
      }),
    lastReadAt: time().nullable().meta({ description: 'When it last heard from its source.' }),
    lastReadKind: z.enum(['delta', 'poll', 'full', 'push']).nullable(),
    newestChangeAt: time()
      .nullable()
      .meta({ description: 'When the newest change it applied happened at the source.' }),
    lagSeconds: z.number().min(0).nullable().meta({
      description:
        'A pulled input: seconds since it last read its source (its changes are at most this old).',
    }),
    lastRead: z
      .strictObject({ changes: count(), entriesRead: count(), durationMs: z.number().min(0) })
      .nullable()
      .meta({ description: 'What its last change read cost: the changes it applied, the entries it read.' }),
    reads: z
      .strictObject({ reads: count(), changes: count(), entriesRead: count(), durationMs: count() })
      .meta({
        description:
          'Its change reads added up, across every process, since its state was made: how many, the changes they applied, the entries they read, their time.',
      }),
    failures: count().meta({ description: 'Reads of its source that failed in a row.' }),
    lastError: text().nullable(),
    missedHooks: count().nullable().meta({
      description:
        'An input that takes pushes and reads its changes too (okta): events its change read brought before any push did; null for the others.',
    }),
  }),
);
export type InputStatus = z.infer<typeof InputStatus>;

export const RedisStatus = z
  .strictObject({
    topology: z.enum(['single', 'sentinel', 'cluster']),
    primary: text()
      .nullable()
      .meta({ description: "host:port written to now (on a Cluster: the master of the bridge's slot)." }),
    sentinel: z.strictObject({ name: text(), nodes: count() }).optional(),
    cluster: z.strictObject({ nodes: count(), masters: count() }).optional(),
    replicas: count().nullable().meta({ description: 'Replicas connected to that primary now.' }),
    minReplicas: count().meta({
      description: 'Replicas that must hold a write before an input is answered.',
    }),
    replicaTimeoutMs: count(),
  })
  .meta({ description: 'The Redis topology and how durable an acknowledged write is (REDIS_MIN_REPLICAS).' });

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
    redis: RedisStatus,
    inputs: z.array(InputStatus).meta({ description: 'Each input: what it can do, and how fresh it is.' }),
    activeSync: SyncView.nullable().meta({
      description:
        'A sync running or held: the one awaiting approval first, else the oldest (see activeSyncs).',
    }),
    activeSyncs: z.array(SyncView).meta({
      description: 'Every sync running or held, one per input (each input has its own sync slot).',
    }),
    lastSync: SyncView.nullable(),
    lastFullSync: SyncView.nullable().meta({ description: 'Last completed sync that was not a dry run.' }),
  }),
);
export type Status = z.infer<typeof Status>;

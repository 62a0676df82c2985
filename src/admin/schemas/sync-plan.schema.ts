import { z } from 'zod';
import { LinkCounts, LinkOnly, OwnedElsewhere } from './plan-inputs.schema.js';
import { answer, count, counts, identityKind, text } from './shapes.js';

/**
 * A full reconciliation's plan and summary as GET /admin/sync/{jobId} shows them (SPEC §6): the
 * counts, the guards' verdict, the removals by kind, and a sample of the changes.
 */

/** The actions of a plan's changes. */
export const CHANGE_ACTIONS = ['create', 'update', 'adopt', 'deprovision'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

export const KindCounts = answer('KindCounts', counts(['create', 'update', 'deprovision', 'unchanged']));
export type KindCounts = z.infer<typeof KindCounts>;

export const PlannedChange = z.strictObject({
  kind: identityKind(),
  id: text(),
  action: z.enum(CHANGE_ACTIONS),
  targetId: text().optional(),
  attributes: z.array(text()).optional(),
  userName: text()
    .optional()
    .meta({ description: 'Users: the userName (desired, or as the platform lists it).' }),
  displayName: text().optional().meta({ description: 'Groups: the displayName (desired, or as listed).' }),
});
export type PlannedChange = z.infer<typeof PlannedChange>;

export const RemovedUser = z.strictObject({ id: text().nullable(), userName: text().nullable() });
export const RemovedGroup = z.strictObject({ id: text().nullable(), displayName: text().nullable() });
export const MembershipRemoval = z.strictObject({
  group: text(),
  displayName: text().nullable(),
  total: count(),
  removed: z.array(RemovedUser),
});

export const Removals = z
  .strictObject({
    users: z.strictObject({ total: count(), sample: z.array(RemovedUser) }),
    groups: z.strictObject({ total: count(), sample: z.array(RemovedGroup) }),
    memberships: z.strictObject({
      total: count().meta({ description: 'Members removed, over all groups.' }),
      groups: count().meta({ description: 'Groups losing members.' }),
      sample: z.array(MembershipRemoval),
    }),
  })
  .meta({
    description:
      'What the run removes on the platform, named as the platform shows them: users deprovisioned, groups deleted, members taken out of groups (samples of at most 100 users and groups, 25 groups of 25 members).',
  });
export type Removals = z.infer<typeof Removals>;

const percent = () => z.number().min(0).max(100);

export const PlanSource = z
  .strictObject({
    name: text().meta({
      description: 'snapshot (pushed), the DIRECTORY_SOURCE (file, ldap, scim), or none.',
    }),
    owner: text().optional().meta({
      description:
        'The input whose identities the run replaces (directory:<DIRECTORY_NAME>); absent without a source.',
    }),
    users: count().optional().meta({ description: 'Users the source lists now.' }),
    last: z
      .strictObject({ jobId: text(), users: count() })
      .optional()
      .meta({ description: 'The last completed sync of this source and the users it listed.' }),
    shrunkByPercent: percent().optional(),
    shrinkLimitPercent: percent(),
  })
  .meta({
    description:
      'Where the users came from, and the count SOURCE_SHRINK_LIMIT compares with the last completed sync of the same source for the same directory.',
  });
export type PlanSource = z.infer<typeof PlanSource>;

/** What a delta read changes, by kind (a held delta's plan, an applied one's summary). */
export const DeltaCounts = z
  .strictObject({
    changes: count(),
    users: z.strictObject({ upserted: count(), deleted: count() }),
    groups: z.strictObject({ upserted: count(), deleted: count() }),
    memberships: count(),
    removedWithin24h: count()
      .optional()
      .meta({ description: 'Users removed by earlier deltas of the same input within 24 hours.' }),
  })
  .meta({ description: 'A delta read of an input: the changes it read since its watermark.' });

export const SyncPlan = answer(
  'SyncPlan',
  z
    .looseObject({
      ...KindCounts.shape,
      users: KindCounts,
      groups: KindCounts,
      unmanagedUsers: count()
        .optional()
        .meta({ description: 'Target users the bridge does not manage for any input (left alone).' }),
      ownedElsewhere: OwnedElsewhere.optional(),
      linkOnly: LinkOnly.optional(),
      deprovisionLimit: count()
        .optional()
        .meta({ description: 'DEPROVISION_LIMIT as a count of users for this run.' }),
      deprovisionLimitSetting: text()
        .optional()
        .meta({ description: 'DEPROVISION_LIMIT as configured, e.g. 500,20%.' }),
      held: z.boolean().meta({
        description:
          'The guards hold the run (a dry run: would hold it). A held sync applies nothing until approved.',
      }),
      holdReasons: z.array(z.enum(['deprovision-limit', 'source-shrink', 'configuration-changed'])),
      approved: z
        .literal(true)
        .optional()
        .meta({ description: 'The run continues a held sync an operator approved.' }),
      source: PlanSource.optional(),
      removals: Removals.optional(),
      changes: z.array(PlannedChange).optional(),
      changesOmitted: count().optional(),
      delta: DeltaCounts.optional(),
    })
    .meta({ description: 'What a full reconciliation found to do; `changes` is a sample of at most 100.' }),
);
export type SyncPlan = z.infer<typeof SyncPlan>;

const perName = () => z.record(text(), count());
const linkCount = (description: string) => count().optional().meta({ description });

export const SyncSummary = answer(
  'SyncSummary',
  z.looseObject({
    created: count(),
    updated: count(),
    deprovisioned: count(),
    unchanged: count(),
    unchangedClean: count().optional().meta({
      description:
        "Of `unchanged`, the users and groups found as the last sync that compared them found them — desired state and account both the same, and a group's members still those of its account — counted without being planned.",
    }),
    failed: count(),
    linked: linkCount('A link-only run: identities linked (recorded as managed).'),
    unmatchedInSource: linkCount('A link-only run: source identities no account fits.'),
    unmatchedOnPlatform: linkCount('A link-only run: platform accounts left alone.'),
    ambiguous: linkCount('A link-only run: identities two accounts fit (conflict inbox).'),
    linkOnly: z
      .strictObject({ users: LinkCounts, groups: LinkCounts })
      .optional()
      .meta({ description: 'A link-only run: the counts above per kind, as plan.linkOnly has them.' }),
    requests: z
      .object({ total: count() })
      .catchall(count())
      .meta({ description: 'Requests sent to the target by HTTP method, and their total.' }),
    durationMs: z.number().min(0),
    outcomes: perName().optional().meta({ description: '"user:created" → count.' }),
    phasesMs: perName().optional().meta({
      description:
        'Milliseconds per phase (readingSource, listingTarget, planning, writingDesiredState, users, groups).',
    }),
    rssMb: perName().optional().meta({ description: 'Process memory (MB) at the end of each phase.' }),
    delta: DeltaCounts.optional(),
  }),
);
export type SyncSummary = z.infer<typeof SyncSummary>;

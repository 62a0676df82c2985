import { z } from 'zod';
import { LinkCandidate, LIST_ACTIONS, REFUSALS } from './plan-inputs.schema.js';
import { CHANGE_ACTIONS } from './sync-plan.schema.js';
import { answer, count, counts, identityKind, text } from './shapes.js';

/** GET /admin/sync/{jobId}/changes: a page of a sync's planned changes, or of a list beside them. */

export const CHANGES_ACTIONS = [...CHANGE_ACTIONS, ...LIST_ACTIONS] as const;
export type ChangesAction = (typeof CHANGES_ACTIONS)[number];

export const SyncChangesQuery = z.strictObject({
  action: z
    .enum(CHANGES_ACTIONS, { error: `not one of ${CHANGES_ACTIONS.join(', ')}` })
    .optional()
    .meta({ description: 'Only changes of this action, or one list; all changes when absent.' }),
  offset: z.coerce.number().int('not a whole number').min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int('not a whole number').min(1).max(100).default(25),
});

export const SyncChange = z.strictObject({
  kind: identityKind(),
  id: text()
    .nullable()
    .meta({ description: 'The source id; null for a platform account (unmatchedOnPlatform).' }),
  action: z.enum(CHANGES_ACTIONS),
  targetId: text().optional(),
  attributes: z.array(text()).optional(),
  userName: text()
    .nullable()
    .optional()
    .meta({ description: 'Users: as the plan, the platform or the desired state names it.' }),
  displayName: text().nullable().optional().meta({ description: 'Groups: likewise.' }),
  owner: text().nullable().optional().meta({ description: 'ownedElsewhere: the input that owns it.' }),
  refused: z.enum(REFUSALS).optional().meta({
    description:
      'ownedElsewhere: a source identity another input holds — its id, its name, externalId or the platform account it matches — or one parked already (a conflict waits); `ambiguous`: parked by its own ambiguous conflict (two platform accounts fit it).',
  }),
  candidates: z
    .array(LinkCandidate)
    .optional()
    .meta({ description: 'ambiguous: the platform accounts that fit.' }),
});
export type SyncChange = z.infer<typeof SyncChange>;

export const SyncChanges = answer(
  'SyncChanges',
  z.strictObject({
    jobId: text(),
    action: z.enum(CHANGES_ACTIONS).nullable().meta({ description: 'null: all changes.' }),
    planned: z.boolean().meta({ description: 'The sync has planned (false while it reads and lists).' }),
    total: count().meta({
      description: 'Changes of this action (identities of this list) in the whole plan.',
    }),
    recorded: count().meta({ description: 'Of those, the ones the record keeps (the first 100).' }),
    totals: counts(CHANGES_ACTIONS).meta({
      description: 'Changes per action, and identities per list, in the whole plan.',
    }),
    offset: count(),
    limit: count(),
    items: z.array(SyncChange),
  }),
);
export type SyncChanges = z.infer<typeof SyncChanges>;

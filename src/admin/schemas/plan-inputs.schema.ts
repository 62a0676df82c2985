import { z } from 'zod';
import { count, counts, identityKind, text } from './shapes.js';

/**
 * What a sync's plan says of other inputs (SPEC §6, Ownership) and of a link-only run's lists
 * (sync-plan.schema.ts holds the rest of the plan); GET /admin/sync/{jobId}/changes pages them.
 */

export const LINK_LISTS = ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous'] as const;
/** The lists a plan keeps beside its changes. */
export const LIST_ACTIONS = ['ownedElsewhere', ...LINK_LISTS] as const;
export type ListAction = (typeof LIST_ACTIONS)[number];

export const REFUSALS = ['same-id', 'account', 'parked', 'ambiguous'] as const;

const PerKind = counts(['users', 'groups']);

export const OwnedElsewhere = z
  .strictObject({
    users: count(),
    groups: count(),
    owners: z
      .record(text(), PerKind)
      .meta({ description: 'Per owner (scim, events, okta, directory:<name>).' }),
    refused: PerKind,
    ambiguous: PerKind.optional().meta({
      description:
        "The source's identities parked by their own ambiguous conflict (two platform accounts fit them, no other input involved): not planned until an admin links one at /admin/conflicts; not counted in `refused` (absent from the records of older versions, which counted them there).",
    }),
    sample: z.array(
      z.strictObject({
        kind: identityKind(),
        id: text(),
        owner: text().nullable(),
        name: text().nullable(),
        refused: z.enum(REFUSALS).optional(),
        targetId: text().optional(),
      }),
    ),
  })
  .meta({
    description:
      "What a run that reads a source leaves to the other inputs (SPEC §6, Ownership): their desired identities, never deprovisioned, deleted or counted against DEPROVISION_LIMIT; and the source's identities another input holds (`refused`: its id, or the platform account they match — a conflict is recorded), and beside them those parked by their own ambiguous conflict (`ambiguous`). `sample`: the refused and ambiguous ones first (marked by `refused`: `same-id`, `account`, `parked` or `ambiguous`), then other inputs' identities, 100 at most (paged at GET /admin/sync/{jobId}/changes?action=ownedElsewhere).",
  });
export type OwnedElsewhere = z.infer<typeof OwnedElsewhere>;

/** A platform account that fits an identity: its id, what matched, its name. */
export const LinkCandidate = z.strictObject({ targetId: text(), by: text(), name: text() });

export const LinkItem = z.strictObject({
  kind: identityKind(),
  id: text().nullable().meta({ description: 'null for a platform account (unmatchedOnPlatform).' }),
  name: text().nullable(),
  targetId: text().optional(),
  candidates: z.array(LinkCandidate).optional(),
});

export const LinkCounts = counts(LINK_LISTS);
export type LinkCounts = z.infer<typeof LinkCounts>;

export const LinkOnly = z
  .strictObject({
    ...LinkCounts.shape,
    users: LinkCounts,
    groups: LinkCounts,
    samples: z.strictObject(
      Object.fromEntries(LINK_LISTS.map((list) => [list, z.array(LinkItem)])) as Record<
        (typeof LINK_LISTS)[number],
        z.ZodArray<typeof LinkItem>
      >,
    ),
  })
  .meta({
    description:
      'A link-only run (SPEC §6): source identities linked to a platform account and recorded as managed, unmatched in the source (a normal sync would create them), platform accounts unmatched (no identity manages them: left alone), ambiguous (two accounts fit: sent to the conflict inbox). `samples`: the first 100 of each list, paged at GET /admin/sync/{jobId}/changes?action=….',
  });
export type LinkOnly = z.infer<typeof LinkOnly>;

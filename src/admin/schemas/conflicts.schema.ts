import { z } from 'zod';
import { answer, count, identityKind, request, text, time } from './shapes.js';

/**
 * The conflict inbox (SPEC §6, Ownership): identities two inputs claim, and their resolution.
 * GET /admin/conflicts, POST /admin/conflicts/{id}/resolve; an identity's trace shows its own.
 */

export const ConflictParty = answer(
  'ConflictParty',
  z.strictObject({
    owner: text().nullable().meta({
      description: 'The input: scim, events, okta or directory:<name> (null: stored before owners existed).',
    }),
    id: text(),
    name: text().nullable().meta({ description: 'userName or displayName' }),
  }),
);
export type ConflictParty = z.infer<typeof ConflictParty>;

export const ConflictCandidate = z.strictObject({ targetId: text(), by: text(), name: text().nullable() });

export const Conflict = answer(
  'Conflict',
  z.strictObject({
    id: text(),
    kind: z.enum(['same-id', 'account', 'ambiguous']).meta({
      description:
        'same-id: an input sent an id another input owns; account: the userName / displayName, externalId or matching platform account belongs to another input; ambiguous: two unmanaged platform accounts fit.',
    }),
    identityKind: identityKind(),
    status: z
      .enum(['open', 'ignored', 'linked', 'withdrawn'])
      .meta({ description: 'withdrawn: the claimant was deleted by its input.' }),
    claimant: ConflictParty.meta({ description: 'The newcomer: parked (same-id: not stored).' }),
    holder: ConflictParty.nullable(),
    account: z.strictObject({
      targetId: text().nullable().meta({ description: 'The platform account, once there is one.' }),
      by: text().meta({ description: 'What matched: id, externalId, userName, displayName or listing.' }),
      candidates: z.array(ConflictCandidate).optional(),
    }),
    desired: z
      .record(text(), z.unknown())
      .optional()
      .meta({ description: 'same-id: what the claimant sent.' }),
    firstSeenAt: time().nullable(),
    lastSeenAt: time().nullable(),
    resolvedAt: time().nullable(),
    resolution: z
      .strictObject({ action: z.enum(['link', 'ignore']), targetId: text().nullable() })
      .nullable(),
  }),
);
export type Conflict = z.infer<typeof Conflict>;

export const ConflictList = answer(
  'ConflictList',
  z.strictObject({ total: count(), items: z.array(Conflict), nextCursor: text().nullable() }),
);
export type ConflictList = z.infer<typeof ConflictList>;

export const ConflictListQuery = z.strictObject({
  status: z.enum(['open', 'ignored', 'all'], { error: 'not open, ignored or all' }).default('open'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0)
    .meta({ description: 'nextCursor of the previous page' }),
});

export const ConflictParams = z.strictObject({
  id: text().meta({ description: "The conflict's id, as GET /admin/conflicts lists it." }),
});

export const ConflictResolveBody = request(
  'ConflictResolveBody',
  z.strictObject({
    action: z.enum(['link', 'ignore'], { error: 'not link or ignore' }),
    targetId: z
      .string()
      .min(1, 'empty')
      .max(1024, 'longer than 1024 characters')
      .optional()
      .meta({ description: 'Ambiguous: the candidate platform account to link.' }),
  }),
);

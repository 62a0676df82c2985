import { z } from 'zod';
import { answer, count, identityKind, request, text } from './shapes.js';

/**
 * POST /admin/identities/{users|groups}/{key}/provision: provision on demand — one identity read
 * from its input's source now, shown step by step, applied alone unless `dryRun`.
 */

export const ProvisionParams = z.object({
  kind: z
    .enum(['users', 'groups'], { error: 'not users or groups' })
    .meta({ description: 'users or groups' }),
  key: z.string().min(1, 'empty').max(1024, 'longer than 1024 characters').meta({
    description:
      "The identity's id at its source — the id the bridge keys it by and the platform's externalId (LDAP: entryUUID, or objectGUID as a GUID string; Okta: its id; a file or an upstream SCIM server: the item's id) — or, for LDAP, its DN.",
  }),
});

export const ProvisionBody = request(
  'ProvisionRequest',
  z.strictObject({
    input: z.string().min(1, 'empty').max(200, 'longer than 200 characters').optional().meta({
      description:
        'The input to read it from, by its owner name (directory:<name>, okta); may be left out when only one input can be read one identity at a time.',
    }),
    dryRun: z
      .boolean({ error: 'not true or false' })
      .default(false)
      .meta({ description: 'Show the steps; write nothing (the platform sees look-ups only).' }),
    waitSeconds: z
      .number({ error: 'not a number' })
      .int('not a whole number')
      .min(0, 'below 0')
      .max(120, 'above 120')
      .default(20)
      .meta({
        description:
          'How long an apply waits for the platform to match before answering with `applied.state: pending` (0: answer once written).',
      }),
  }),
);
export type ProvisionBody = z.infer<typeof ProvisionBody>;

const Expression = z.strictObject({ attribute: text(), setting: text(), expression: text() });

const MemberView = z.strictObject({
  id: text(),
  label: text(),
  outcome: z.enum(['in-scope', 'out-of-scope', 'unmappable']),
  reason: text().optional(),
  userName: text().optional(),
  targetId: text().optional().meta({ description: 'Its platform id, when the bridge has provisioned it.' }),
});

const AppliedIdentity = z.strictObject({
  kind: identityKind(),
  id: text(),
  write: text().meta({
    description: 'What the desired state did: created, updated, unchanged, owned-elsewhere, parked…',
  }),
  result: text().optional().meta({ description: 'The outcome of its last reconcile run.' }),
  targetId: text().optional(),
  error: z.strictObject({ code: text(), message: text(), detail: text().optional() }).optional(),
});

const Steps = z.strictObject({
  read: z.strictObject({
    found: z.literal(true),
    id: text(),
    label: text().meta({ description: 'How the source names it: an LDAP DN, an Okta login or id.' }),
    source: text(),
  }),
  scope: z.strictObject({
    outcome: z.enum(['in-scope', 'out-of-scope', 'failed']),
    reason: text(),
    setting: text().optional(),
    expression: text().optional(),
  }),
  mapping: z.strictObject({
    outcome: z.enum(['mapped', 'unmappable', 'skipped']),
    identity: z
      .record(text(), z.unknown())
      .optional()
      .meta({ description: 'The desired state it maps to (a group: its members are listed in `members`).' }),
    reason: text().optional(),
    expressions: z.array(Expression).meta({
      description: 'Attributes computed by an expression; the others follow the source’s own rule.',
    }),
  }),
  members: z
    .strictObject({
      total: count(),
      inScope: count(),
      outOfScope: count(),
      unmappable: count(),
      items: z.array(MemberView).meta({ description: 'The first 100.' }),
    })
    .optional()
    .meta({
      description: 'Groups: the users in it (nested groups flattened) through the user scope and mapping.',
    }),
  match: z.strictObject({
    outcome: z.enum(['matched', 'none', 'not-looked-up']),
    by: z.enum(['targetId', 'externalId', 'userName', 'displayName']).optional(),
    targetId: text().optional(),
    managed: z.boolean().meta({ description: 'The account is the one the bridge manages for it.' }),
    heldBy: text().optional().meta({ description: 'Another identity the bridge manages the account for.' }),
    alsoMatches: text().optional().meta({ description: 'Another platform account that fits by name.' }),
    reason: text(),
  }),
  action: z.strictObject({
    action: z.enum(['create', 'update', 'none', 'remove-would-happen', 'conflict']),
    reason: text(),
    changes: z
      .array(z.strictObject({ attribute: text(), before: z.unknown(), after: z.unknown() }))
      .optional(),
    members: z.strictObject({ add: count(), remove: count(), provisionFirst: count() }).optional(),
  }),
  applied: z
    .strictObject({
      state: z.enum(['converged', 'failed', 'parked', 'pending', 'not-applied']),
      reason: text(),
      identities: z
        .array(AppliedIdentity)
        .meta({ description: 'The identity, then its members (the first 100).' }),
      total: count(),
    })
    .optional()
    .meta({ description: 'Absent in a dry run.' }),
});

export const ProvisionResult = answer(
  'ProvisionResult',
  z.strictObject({
    input: text(),
    kind: identityKind(),
    key: text(),
    dryRun: z.boolean(),
    steps: Steps,
  }),
);
export type ProvisionResult = z.infer<typeof ProvisionResult>;

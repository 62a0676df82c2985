import { z } from 'zod';
import { Conflict } from './conflicts.schema.js';
import { answer, identityKind, text, time } from './shapes.js';

/** GET /admin/identities/{users|groups}/{key}: one identity's trace. */

export const IdentityParams = z.object({
  kind: z
    .enum(['users', 'groups'], { error: 'not users or groups' })
    .meta({ description: 'users or groups' }),
  key: z.string().min(1, 'empty').max(1024, 'longer than 1024 characters').meta({
    description:
      "The id (the bridge's or the source's), the userName / displayName (case-insensitive), the externalId the input sent (the IdP's id), or the platform id.",
  }),
});

export const StoredError = answer(
  'StoredError',
  z.strictObject({
    code: text(),
    message: text(),
    status: z.number().int().optional().meta({ description: "The target's HTTP status." }),
    detail: text().optional().meta({ description: "The target's SCIM `detail` (RFC 7644 §3.12)." }),
    at: time().nullable(),
  }),
);
export type StoredError = z.infer<typeof StoredError>;

export const HistoryEntry = answer(
  'HistoryEntry',
  z
    .looseObject({
      at: time().nullable(),
      type: z.enum(['signal', 'decision', 'request', 'error', 'unknown']),
    })
    .meta({
      description:
        'A signal (a change arrived), a decision, a request to the target, or an error; newest first.',
    }),
);
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const IdentityStatus = z.enum([
  'failed',
  'awaiting-approval',
  'retrying',
  'pending',
  'in-sync',
  'not-provisioned',
  'deprovisioned',
  'removed',
  'parked',
]);
export type IdentityStatus = z.infer<typeof IdentityStatus>;

const when = () => time().nullable();

export const Identity = answer(
  'Identity',
  z.strictObject({
    kind: identityKind(),
    id: text(),
    key: text(),
    matchedBy: z.enum(['id', 'userName', 'displayName', 'externalId', 'targetId']),
    status: IdentityStatus.meta({
      description:
        'pending: a change waits; deprovisioned: removed from the desired state and deactivated or deleted on the platform (as DEPROVISION says); removed: removed before the bridge had a platform account for it; awaiting-approval: a held sync would remove it (or members of it); parked: a conflict between inputs waits for an admin (see parked).',
    }),
    desired: z
      .record(text(), z.unknown())
      .nullable()
      .meta({ description: 'null: the identity should not exist.' }),
    targetId: text().nullable(),
    managed: z.boolean().meta({ description: 'Created or adopted by the bridge.' }),
    owner: text()
      .nullable()
      .meta({ description: 'The input that owns it: scim, events, okta or directory:<name>.' }),
    parked: Conflict.nullable().meta({
      description: 'The conflict that parks it: not reconciled until an admin resolves it.',
    }),
    createdAt: when(),
    changedAt: when(),
    lastAppliedAt: when(),
    lastAttemptAt: when(),
    lastResult: text().nullable(),
    lastError: StoredError.nullable(),
    failedAt: when(),
    pendingSince: when(),
    heldBy: text().nullable(),
    groups: z.array(text()).optional(),
    names: z.record(text(), text()).optional().meta({
      description:
        "userName / displayName by source id of the identities it lists: a user's groups, a group's members (the first 500).",
    }),
    history: z.array(HistoryEntry),
  }),
);
export type Identity = z.infer<typeof Identity>;

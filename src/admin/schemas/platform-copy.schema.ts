import { z } from 'zod';
import { answer, count, identityKind, text, time } from './shapes.js';

/** GET /admin/identities/{users|groups}/{key}/platform: the identity beside its copy on the platform. */

export const AttributeRow = z.strictObject({
  attribute: text(),
  desired: z.unknown().meta({ description: 'What the bridge wants on the platform; null when nothing.' }),
  platform: z.unknown().meta({ description: 'What the platform holds; null when nothing.' }),
  differs: z.boolean().meta({ description: 'The next run would change it.' }),
});
export type AttributeRow = z.infer<typeof AttributeRow>;

export const MemberRow = z
  .strictObject({
    id: text()
      .nullable()
      .meta({ description: 'Source id; null for a platform member the bridge does not know.' }),
    targetId: text()
      .nullable()
      .meta({ description: 'Platform id; null for a member not created there yet.' }),
    userName: text().nullable(),
    desired: z.boolean().meta({ description: 'A member in the desired state.' }),
    platform: z.boolean().meta({ description: 'A member on the platform.' }),
  })
  .meta({ description: 'One member of a group on either side, named as far as the bridge knows it.' });
export type MemberRow = z.infer<typeof MemberRow>;

export const MemberRows = z
  .strictObject({
    desired: count(),
    platform: count(),
    missing: count().meta({ description: 'Desired members the platform lacks.' }),
    extra: count().meta({ description: 'Platform members not desired.' }),
    rows: z.array(MemberRow),
    rowsOmitted: count(),
  })
  .meta({ description: 'Groups: members on both sides, those that differ first (at most 500 rows).' });

export const PlatformCopy = answer(
  'PlatformCopy',
  z.strictObject({
    kind: identityKind(),
    id: text(),
    key: text(),
    targetId: text().nullable(),
    inDesiredState: z
      .boolean()
      .meta({ description: 'false: the identity should not exist (deprovisioned).' }),
    platform: z.enum(['found', 'not-found', 'not-linked']).meta({
      description:
        'not-found: the platform answers 404 for the recorded id; not-linked: the bridge has no platform id for it yet (nothing was read).',
    }),
    attributes: z.array(AttributeRow),
    differences: z.array(text()).meta({ description: 'Managed attributes that differ.' }),
    members: MemberRows.optional(),
    resource: z
      .record(text(), z.unknown())
      .nullable()
      .meta({ description: "The platform's copy (members in `members`)." }),
    readAt: time(),
  }),
);
export type PlatformCopy = z.infer<typeof PlatformCopy>;

import { z } from 'zod';
import { answer, count, identityKind, text } from './shapes.js';

/**
 * A preview of a scope and mapping (docs/scope-and-mapping.md): POST /admin/sync with `candidate`,
 * the counts in GET /admin/sync/{jobId} (`preview`), the identities page by page in
 * GET /admin/sync/{jobId}/preview. A sync whose configuration changed since its input's last
 * applied one shows the same, the last one as `before`.
 */

export const PREVIEW_CATEGORIES = ['entering', 'leaving', 'changed', 'unmappable', 'collisions'] as const;

const perKind = () => z.strictObject({ users: count(), groups: count() });

/** Scope and mapping settings, as config/default.yaml's `directory.scope` / `directory.mapping`. */
export const PolicySettingsView = z.strictObject({
  scope: z.record(z.string(), z.string()),
  mapping: z.strictObject({
    users: z.record(z.string(), z.string()),
    groups: z.record(z.string(), z.string()),
  }),
});

export const PolicySide = z.strictObject({ fingerprint: text(), settings: PolicySettingsView });

export const PreviewCounts = z.strictObject({
  entering: perKind(),
  leaving: perKind(),
  changed: perKind(),
  unmappable: perKind(),
  collisions: perKind(),
  unchanged: perKind(),
});

export const PreviewSummary = z.strictObject({
  before: PolicySide.meta({
    description: 'The scope and mapping compared with: in force (a preview), or the last applied.',
  }),
  after: PolicySide.meta({ description: 'The candidate (a preview), or the configuration in force.' }),
  counts: PreviewCounts,
  renames: count().meta({ description: 'Users and groups whose userName / displayName changes.' }),
});

export type PreviewSummary = z.infer<typeof PreviewSummary>;

export const AttributeChange = z.strictObject({
  attribute: text(),
  before: z.union([z.string(), z.boolean()]).nullable(),
  after: z.union([z.string(), z.boolean()]).nullable(),
});

export const PreviewEntry = z.strictObject({
  kind: identityKind(),
  id: text(),
  name: text()
    .nullable()
    .meta({ description: 'userName / displayName (after the change; before, for those leaving).' }),
  label: text().optional().meta({ description: 'How the source names it (an LDAP DN).' }),
  changes: z.array(AttributeChange).optional(),
  reason: text().optional().meta({ description: 'unmappable: why.' }),
  with: text()
    .optional()
    .meta({ description: 'collisions: the id of the identity that has the name first.' }),
});

export type PreviewEntry = z.infer<typeof PreviewEntry>;

export const SyncPreviewQuery = z.strictObject({
  category: z
    .enum(PREVIEW_CATEGORIES, { error: `not one of ${PREVIEW_CATEGORIES.join(', ')}` })
    .default('changed'),
  offset: z.coerce.number().int('not a whole number').min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int('not a whole number').min(1).max(100).default(25),
});

export const SyncPreviewPage = answer(
  'SyncPreviewPage',
  z.strictObject({
    jobId: text(),
    category: z.enum(PREVIEW_CATEGORIES),
    total: count().meta({ description: 'Identities in the category (users and groups).' }),
    recorded: count().meta({ description: 'Those the sync kept by name (the first 500).' }),
    offset: count(),
    limit: count(),
    items: z.array(PreviewEntry),
  }),
);
export type SyncPreviewPage = z.infer<typeof SyncPreviewPage>;

export const SkippedView = z.strictObject({
  count: count(),
  sample: z.array(z.strictObject({ kind: z.enum(['users', 'groups']), label: text(), reason: text() })),
});

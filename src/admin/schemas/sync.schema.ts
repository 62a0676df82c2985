import { z } from 'zod';
import { answer, count, request, text, time } from './shapes.js';
import { SyncPlan, SyncSummary } from './sync-plan.schema.js';
import { PreviewSummary, SkippedView } from './sync-preview.schema.js';

/** A full reconciliation (SPEC §6) as the admin API takes and shows it: POST/GET /admin/sync…. */

export const SYNC_STATES = ['queued', 'running', 'awaiting-approval', 'completed', 'failed'] as const;
export const SYNC_PHASES = [
  'queued',
  'reading-source',
  'listing-target',
  'planning',
  'applying',
  'awaiting-approval',
  'done',
] as const;

export const SyncProgress = z.strictObject({ phase: z.enum(SYNC_PHASES), done: count(), total: count() });

export const SyncError = z.strictObject({
  code: text().meta({
    description:
      'e.g. cancelled, source_empty (the source, or its scope and mapping, left no users: nothing changed).',
  }),
  side: z
    .enum(['input', 'config', 'store', 'platform', 'source', 'bridge'])
    .meta({ description: 'Which side failed (input: e.g. cancelled by an operator).' }),
  message: text(),
});

export const SyncView = answer(
  'SyncView',
  z.strictObject({
    jobId: text(),
    state: z.enum(SYNC_STATES),
    dryRun: z.boolean(),
    trigger: z.enum(['admin', 'cli', 'demo', 'schedule', 'delta']).meta({
      description:
        'Who started it; `delta`: a delta read, held over DEPROVISION_LIMIT or needing a full read.',
    }),
    input: text().optional().meta({
      description: 'The input whose identities it replaces (okta, directory:<name>); absent: every input.',
    }),
    createdAt: time(),
    startedAt: time().optional(),
    finishedAt: time().optional(),
    progress: SyncProgress,
    plan: SyncPlan.optional(),
    summary: SyncSummary.optional(),
    error: SyncError.optional(),
    cancelRequested: z.literal(true).optional(),
    allowEmpty: z
      .literal(true)
      .optional()
      .meta({ description: 'Started with allowEmpty: an empty source is not refused.' }),
    linkOnly: z.literal(true).optional().meta({
      description: 'A link-only run: it records matches as managed and writes nothing to the platform.',
    }),
    candidate: z.literal(true).optional().meta({
      description:
        'A preview of a candidate scope and mapping (started with `candidate`): `preview` compares the configuration in force (before) with the candidate (after).',
    }),
    policyFingerprint: text().optional().meta({
      description: 'The fingerprint of the scope and mapping the sync read its input with.',
    }),
    preview: PreviewSummary.optional().meta({
      description:
        'A preview (candidate), or a configuration changed since the last applied sync: the difference, counted (identities: GET …/preview).',
    }),
    skipped: SkippedView.optional().meta({
      description: 'Identities the scope and mapping could not map: left out of the sync, with why.',
    }),
    sourceUnchanged: z.literal(true).optional().meta({
      description:
        "The input's source was unchanged since its last applied read (a file: the same bytes, under the same scope and mapping): planned from the input's desired state, not read again.",
    }),
  }),
);
export type SyncView = z.infer<typeof SyncView>;

/** What one event of GET /admin/sync/{jobId}/events carries: state and progress, nothing of the plan. */
export const SyncProgressEvent = answer(
  'SyncProgressEvent',
  SyncView.pick({
    jobId: true,
    state: true,
    progress: true,
    startedAt: true,
    finishedAt: true,
    cancelRequested: true,
  }),
);
export type SyncProgressEvent = z.infer<typeof SyncProgressEvent>;

export const SyncStarted = answer('SyncStarted', z.strictObject({ jobId: text(), started: z.boolean() }));
export type SyncStarted = z.infer<typeof SyncStarted>;
export const SyncList = answer('SyncList', z.strictObject({ syncs: z.array(SyncView) }));
export type SyncList = z.infer<typeof SyncList>;

export const SyncParams = z.strictObject({
  jobId: text().meta({ description: 'The sync id returned by POST /admin/sync.' }),
});

export const SyncListQuery = z.strictObject({
  limit: z.coerce.number().int('not a whole number').min(1).max(100).default(20),
});

export const SyncStartBody = request(
  'SyncStartBody',
  z.strictObject({
    input: z.string().min(1).max(200).optional().meta({
      description:
        'The input to read in full, by its owner name (okta, directory:<name>); default the configured directory.',
    }),
    dryRun: z.boolean().optional().meta({ description: 'Compute and report the plan; write nothing.' }),
    snapshot: z.unknown().optional().meta({
      description:
        'A directory snapshot (SPEC §5.4): {"users": […], "groups": […]}, checked item by item (400 listing each problem).',
    }),
    allowEmpty: z.boolean().optional().meta({
      description:
        'The directory really is empty: a source listing no users is not refused (by default it is, with error source_empty, while the bridge manages users).',
    }),
    candidate: z.unknown().optional().meta({
      description:
        'With dryRun: a candidate scope and mapping ({"scope": {...}, "mapping": {...}}, as directory.scope / directory.mapping) to preview against the input as it is now; writes nothing.',
    }),
    linkOnly: z.boolean().optional().meta({
      description:
        'Onboarding: record the matches between source and platform as managed (externalId first, then userName / displayName) and write nothing to the platform; never deprovisions, never held.',
    }),
  }),
);
export type SyncStartBody = z.infer<typeof SyncStartBody>;

/** The options an NDJSON body's first line may carry: `{"options": {…}}`. */
export const NdjsonOptions = SyncStartBody.pick({ dryRun: true, allowEmpty: true, linkOnly: true });

/** NDJSON's media types on POST /admin/sync, JSON Lines' (`application/jsonl`, the same format) among them. */
export const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl'] as const;

export const SnapshotNdjson = z.string().meta({
  description:
    'One JSON object per line: optionally first {"options": {"dryRun": boolean, "allowEmpty": boolean, "linkOnly": boolean}}, then {"user": {...}} or {"group": {...}} (SPEC §5.4), in any order.',
});

export const SyncEventStream = z.string().meta({
  description: 'Events `progress`, `end` (data: SyncProgressEvent) and `error` (data: {code, message}).',
});

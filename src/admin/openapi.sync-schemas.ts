import { counts, int, nullable, ref, str, time } from './openapi.parts.js';
import { LinkOnly, OwnedElsewhere } from './openapi.ownership-schemas.js';

/**
 * The JSON Schemas of a full reconciliation as the admin API shows it (GET /admin/sync/{jobId}): its
 * plan, with the guards' verdict and the removals by kind, and its summary.
 */

const KindCounts = counts(['create', 'update', 'deprovision', 'unchanged']);

/** A bounded sample of one kind of removal, with the full count. */
const sampled = (item: object) => ({
  type: 'object',
  required: ['total', 'sample'],
  additionalProperties: false,
  properties: { total: int, sample: { type: 'array', items: item } },
});
const named = (name: string) => ({
  type: 'object',
  required: ['id', name],
  additionalProperties: false,
  properties: { id: nullable(str), [name]: nullable(str) },
});

const Removals = {
  type: 'object',
  description:
    'What the run removes on the platform, named as the platform shows them: users deprovisioned, groups deleted, members taken out of groups (samples of at most 100 users and groups, 25 groups of 25 members).',
  required: ['users', 'groups', 'memberships'],
  additionalProperties: false,
  properties: {
    users: sampled(named('userName')),
    groups: sampled(named('displayName')),
    memberships: {
      type: 'object',
      required: ['total', 'groups', 'sample'],
      additionalProperties: false,
      properties: {
        total: { ...int, description: 'Members removed, over all groups.' },
        groups: { ...int, description: 'Groups losing members.' },
        sample: {
          type: 'array',
          items: {
            type: 'object',
            required: ['group', 'displayName', 'total', 'removed'],
            additionalProperties: false,
            properties: {
              group: str,
              displayName: nullable(str),
              total: int,
              removed: { type: 'array', items: named('userName') },
            },
          },
        },
      },
    },
  },
};

const Source = {
  type: 'object',
  description:
    'Where the users came from, and the count SOURCE_SHRINK_LIMIT compares with the last completed sync of the same source for the same directory.',
  required: ['name', 'shrinkLimitPercent'],
  additionalProperties: false,
  properties: {
    name: { ...str, description: 'snapshot (pushed), the DIRECTORY_SOURCE (file, ldap, scim), or none.' },
    owner: {
      ...str,
      description:
        'The input whose identities the run replaces (directory:<DIRECTORY_NAME>); absent without a source.',
    },
    users: { ...int, description: 'Users the source lists now.' },
    last: {
      type: 'object',
      description: 'The last completed sync of this source and the users it listed.',
      required: ['jobId', 'users'],
      additionalProperties: false,
      properties: { jobId: str, users: int },
    },
    shrunkByPercent: { type: 'number', minimum: 0, maximum: 100 },
    shrinkLimitPercent: { type: 'number', minimum: 0, maximum: 100 },
  },
};

export const SyncPlan = {
  type: 'object',
  description: 'What a full reconciliation found to do; `changes` is a sample of at most 100.',
  required: ['create', 'update', 'deprovision', 'unchanged', 'users', 'groups', 'held', 'holdReasons'],
  properties: {
    create: int,
    update: int,
    deprovision: int,
    unchanged: int,
    users: KindCounts,
    groups: KindCounts,
    unmanagedUsers: {
      ...int,
      description: 'Target users the bridge does not manage for any input (left alone).',
    },
    ownedElsewhere: OwnedElsewhere,
    linkOnly: LinkOnly,
    deprovisionLimit: { ...int, description: 'DEPROVISION_LIMIT as a count of users for this run.' },
    deprovisionLimitSetting: { ...str, description: 'DEPROVISION_LIMIT as configured, e.g. 500,20%.' },
    held: {
      type: 'boolean',
      description:
        'The guards hold the run (a dry run: would hold it). A held sync applies nothing until approved.',
    },
    holdReasons: { type: 'array', items: { enum: ['deprovision-limit', 'source-shrink'] } },
    approved: { const: true, description: 'The run continues a held sync an operator approved.' },
    source: Source,
    removals: Removals,
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'id', 'action'],
        additionalProperties: false,
        properties: {
          kind: { enum: ['user', 'group'] },
          id: str,
          action: { enum: ['create', 'update', 'adopt', 'deprovision'] },
          targetId: str,
          attributes: { type: 'array', items: str },
          userName: { ...str, description: 'Users: the userName (desired, or as the platform lists it).' },
          displayName: { ...str, description: 'Groups: the displayName (desired, or as listed).' },
        },
      },
    },
    changesOmitted: int,
  },
};
export const SyncSummary = {
  type: 'object',
  required: ['created', 'updated', 'deprovisioned', 'unchanged', 'failed', 'requests', 'durationMs'],
  properties: {
    created: int,
    updated: int,
    deprovisioned: int,
    unchanged: int,
    failed: int,
    linked: { ...int, description: 'A link-only run: identities linked (recorded as managed).' },
    unmatchedInSource: { ...int, description: 'A link-only run: source identities no account fits.' },
    unmatchedOnPlatform: { ...int, description: 'A link-only run: platform accounts left alone.' },
    ambiguous: { ...int, description: 'A link-only run: identities two accounts fit (conflict inbox).' },
    requests: {
      type: 'object',
      description: 'Requests sent to the target by HTTP method, and their total.',
      required: ['total'],
      additionalProperties: int,
    },
    durationMs: { type: 'number', minimum: 0 },
    outcomes: { type: 'object', additionalProperties: int, description: '"user:created" → count.' },
    phasesMs: {
      type: 'object',
      additionalProperties: int,
      description:
        'Milliseconds per phase (readingSource, listingTarget, planning, writingDesiredState, users, groups).',
    },
    rssMb: {
      type: 'object',
      additionalProperties: int,
      description: 'Process memory (MB) at the end of each phase.',
    },
  },
};

export const SyncView = {
  type: 'object',
  required: ['jobId', 'state', 'dryRun', 'trigger', 'createdAt', 'progress'],
  additionalProperties: false,
  properties: {
    jobId: str,
    state: { enum: ['queued', 'running', 'awaiting-approval', 'completed', 'failed'] },
    dryRun: { type: 'boolean' },
    trigger: { enum: ['admin', 'cli', 'demo', 'schedule'] },
    createdAt: time,
    startedAt: time,
    finishedAt: time,
    progress: {
      type: 'object',
      required: ['phase', 'done', 'total'],
      additionalProperties: false,
      properties: { phase: str, done: int, total: int },
    },
    plan: ref('SyncPlan'),
    summary: ref('SyncSummary'),
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: {
          ...str,
          description: 'e.g. cancelled, source_empty (the source listed no users: nothing changed).',
        },
        side: {
          enum: ['input', 'config', 'store', 'platform', 'source', 'bridge'],
          description: 'Which side failed (input: e.g. cancelled by an operator).',
        },
        message: str,
      },
    },
    cancelRequested: { const: true },
    allowEmpty: { const: true, description: 'Started with allowEmpty: an empty source is not refused.' },
    linkOnly: {
      const: true,
      description: 'A link-only run: it records matches as managed and writes nothing to the platform.',
    },
  },
};

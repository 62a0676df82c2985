/**
 * The JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the admin API's bodies. The OpenAPI test
 * validates every admin route's real responses against them, so they describe what the code sends.
 */

const int = { type: 'integer', minimum: 0 } as const;
const str = { type: 'string' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullable = <T extends object>(schema: T) => ({ oneOf: [schema, { type: 'null' }] });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const counts = (names: readonly string[]) => ({
  type: 'object',
  required: [...names],
  properties: Object.fromEntries(names.map((n) => [n, int])),
  additionalProperties: false,
});

const ErrorBody = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { ...str, description: 'Stable error code, e.g. unauthorized, not_found, invalid_input.' },
        message: str,
        problems: { type: 'array', items: str, description: 'Each problem of an invalid input.' },
      },
    },
  },
};

const KindCounts = counts(['create', 'update', 'deprovision', 'unchanged']);

const SyncPlan = {
  type: 'object',
  description: 'What a full reconciliation found to do; `changes` is a sample of at most 100.',
  required: ['create', 'update', 'deprovision', 'unchanged', 'users', 'groups', 'held'],
  properties: {
    create: int,
    update: int,
    deprovision: int,
    unchanged: int,
    users: KindCounts,
    groups: KindCounts,
    unmanagedUsers: { ...int, description: 'Target users the bridge does not manage (left alone).' },
    deprovisionLimit: int,
    held: { type: 'boolean', description: 'Deprovisioning is over DEPROVISION_LIMIT and awaits approval.' },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'id', 'action'],
        additionalProperties: false,
        properties: {
          kind: { enum: ['user', 'group'] },
          id: str,
          action: { enum: ['create', 'update', 'deprovision'] },
          targetId: str,
          attributes: { type: 'array', items: str },
        },
      },
    },
    changesOmitted: int,
  },
};

const SyncSummary = {
  type: 'object',
  required: ['created', 'updated', 'deprovisioned', 'unchanged', 'failed', 'requests', 'durationMs'],
  properties: {
    created: int,
    updated: int,
    deprovisioned: int,
    unchanged: int,
    failed: int,
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

const SyncView = {
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
        code: str,
        side: {
          enum: ['input', 'config', 'store', 'platform', 'source', 'bridge'],
          description: 'Which side failed (input: e.g. cancelled by an operator).',
        },
        message: str,
      },
    },
    cancelRequested: { const: true },
  },
};

const queueCounts = counts([
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
]);

const Status = {
  type: 'object',
  required: ['status', 'target', 'queues', 'identities', 'failures', 'pending'],
  additionalProperties: false,
  properties: {
    status: { enum: ['ok', 'degraded'], description: 'degraded while the target is not reachable.' },
    target: {
      type: 'object',
      required: ['state', 'since', 'detail', 'pausedForMs'],
      additionalProperties: false,
      properties: {
        state: { enum: ['reachable', 'rate-limited', 'auth-failed', 'unavailable'] },
        since: { ...nullable(time), description: 'When the state last changed; null if never recorded.' },
        detail: nullable(str),
        pausedForMs: { ...int, description: 'Processing is paused for this long still (back-off).' },
      },
    },
    queues: {
      type: 'object',
      description: 'Jobs by state per queue: reconcile, sync, and okta-events when in use.',
      required: ['reconcile', 'sync'],
      additionalProperties: queueCounts,
    },
    identities: {
      type: 'object',
      required: ['users', 'groups'],
      additionalProperties: false,
      properties: { users: counts(['desired', 'managed']), groups: counts(['desired', 'managed']) },
    },
    failures: { ...int, description: 'Identities in permanent failure.' },
    pending: { ...int, description: 'Identities with a change not reconciled yet.' },
    activeSync: nullable(ref('SyncView')),
    lastSync: nullable(ref('SyncView')),
    lastFullSync: {
      ...nullable(ref('SyncView')),
      description: 'Last completed sync that was not a dry run.',
    },
  },
};

const StoredError = {
  type: 'object',
  required: ['code', 'message', 'at'],
  additionalProperties: false,
  properties: {
    code: str,
    message: str,
    status: { type: 'integer', description: "The target's HTTP status." },
    detail: { ...str, description: "The target's SCIM `detail` (RFC 7644 §3.12)." },
    at: nullable(time),
  },
};

const HistoryEntry = {
  type: 'object',
  description: 'A signal (a change arrived), a decision, a request to the target, or an error; newest first.',
  required: ['at', 'type'],
  properties: { at: nullable(time), type: { enum: ['signal', 'decision', 'request', 'error', 'unknown'] } },
};

const Identity = {
  type: 'object',
  required: ['kind', 'id', 'key', 'matchedBy', 'status', 'desired', 'targetId', 'managed', 'history'],
  additionalProperties: false,
  properties: {
    kind: { enum: ['user', 'group'] },
    id: str,
    key: str,
    matchedBy: { enum: ['id', 'userName', 'displayName'] },
    status: {
      enum: ['failed', 'awaiting-approval', 'retrying', 'pending', 'in-sync', 'not-provisioned', 'removed'],
    },
    desired: { ...nullable({ type: 'object' }), description: 'null: the identity should not exist.' },
    targetId: nullable(str),
    managed: { type: 'boolean', description: 'Created or adopted by the bridge.' },
    createdAt: nullable(time),
    changedAt: nullable(time),
    lastAppliedAt: nullable(time),
    lastAttemptAt: nullable(time),
    lastResult: nullable(str),
    lastError: nullable(ref('StoredError')),
    failedAt: nullable(time),
    pendingSince: nullable(time),
    heldBy: nullable(str),
    groups: { type: 'array', items: str },
    history: { type: 'array', items: ref('HistoryEntry') },
  },
};

const Failure = {
  type: 'object',
  required: ['key', 'kind', 'id', 'name', 'failedAt', 'error'],
  additionalProperties: false,
  properties: {
    key: str,
    kind: { enum: ['user', 'group'] },
    id: str,
    name: nullable(str),
    failedAt: nullable(time),
    error: nullable(ref('StoredError')),
  },
};

const FailureList = {
  type: 'object',
  required: ['total', 'items', 'nextCursor'],
  additionalProperties: false,
  properties: {
    total: int,
    items: { type: 'array', items: ref('Failure') },
    nextCursor: nullable(str),
  },
};

export const ADMIN_SCHEMAS = {
  Error: ErrorBody,
  SyncPlan,
  SyncSummary,
  SyncView,
  Status,
  StoredError,
  HistoryEntry,
  Identity,
  Failure,
  FailureList,
};

/**
 * The JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the admin API's bodies. The OpenAPI test
 * validates every admin route's real responses against them, so they describe what the code sends.
 */

import { CONFLICT_SCHEMAS } from './openapi.conflicts.js';
import { counts, int, nullable, ref, str, time } from './openapi.parts.js';
import { SyncPlan, SyncSummary, SyncView } from './openapi.sync-schemas.js';
import { VIEW_SCHEMAS } from './openapi.view-schemas.js';

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
      description:
        'managed: created or adopted on the platform and still desired; deprovisioned: managed but no longer desired (deactivated on the platform, or about to be deprovisioned).',
      properties: {
        users: counts(['desired', 'managed', 'deprovisioned']),
        groups: counts(['desired', 'managed', 'deprovisioned']),
      },
    },
    failures: { ...int, description: 'Identities in permanent failure.' },
    pending: { ...int, description: 'Identities with a change not reconciled yet.' },
    conflicts: { ...int, description: 'Open conflicts between inputs (GET /admin/conflicts).' },
    owners: {
      type: 'object',
      description: 'Desired identities per owning input (scim, events, okta, directory:<name>).',
      additionalProperties: counts(['users', 'groups']),
    },
    activeSync: nullable(ref('SyncView')),
    lastSync: nullable(ref('SyncView')),
    lastFullSync: {
      ...nullable(ref('SyncView')),
      description: 'Last completed sync that was not a dry run.',
    },
    redis: {
      type: 'object',
      description: 'The Redis topology and how durable an acknowledged write is (REDIS_MIN_REPLICAS).',
      required: ['topology', 'primary', 'replicas', 'minReplicas', 'replicaTimeoutMs'],
      additionalProperties: false,
      properties: {
        topology: { enum: ['single', 'sentinel', 'cluster'] },
        primary: {
          ...nullable(str),
          description: "host:port written to now (on a Cluster: the master of the bridge's slot).",
        },
        sentinel: {
          type: 'object',
          required: ['name', 'nodes'],
          additionalProperties: false,
          properties: { name: str, nodes: int },
        },
        cluster: {
          type: 'object',
          required: ['nodes', 'masters'],
          additionalProperties: false,
          properties: { nodes: int, masters: int },
        },
        replicas: { ...nullable(int), description: 'Replicas connected to that primary now.' },
        minReplicas: { ...int, description: 'Replicas that must hold a write before an input is answered.' },
        replicaTimeoutMs: int,
      },
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
    matchedBy: { enum: ['id', 'userName', 'displayName', 'externalId', 'targetId'] },
    status: {
      enum: [
        'failed',
        'awaiting-approval',
        'retrying',
        'pending',
        'in-sync',
        'not-provisioned',
        'deprovisioned',
        'removed',
        'parked',
      ],
      description:
        'pending: a change waits; deprovisioned: removed from the desired state and deactivated or deleted on the platform (as DEPROVISION says); removed: removed before the bridge had a platform account for it; awaiting-approval: a held sync would remove it (or members of it); parked: a conflict between inputs waits for an admin (see parked).',
    },
    desired: { ...nullable({ type: 'object' }), description: 'null: the identity should not exist.' },
    targetId: nullable(str),
    managed: { type: 'boolean', description: 'Created or adopted by the bridge.' },
    owner: {
      ...nullable(str),
      description: 'The input that owns it: scim, events, okta or directory:<name>.',
    },
    parked: {
      ...nullable(ref('Conflict')),
      description: 'The conflict that parks it: not reconciled until an admin resolves it.',
    },
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
    names: {
      type: 'object',
      additionalProperties: str,
      description:
        "userName / displayName by source id of the identities it lists: a user's groups, a group's members (the first 500).",
    },
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
  ...VIEW_SCHEMAS,
  ...CONFLICT_SCHEMAS,
};

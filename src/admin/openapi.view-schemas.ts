import { int, nullable, str, time } from './openapi.parts.js';
import { CHANGE_ACTIONS, LIST_ACTIONS } from './sync-lists.js';

/**
 * The JSON Schemas of the answers the dashboard's views read (openapi.view-paths.ts): a page of a
 * sync's changes, a progress event, and an identity beside its platform copy.
 */

const ACTIONS = [...CHANGE_ACTIONS, ...LIST_ACTIONS];

const actionCounts = {
  type: 'object',
  required: ACTIONS,
  additionalProperties: false,
  properties: Object.fromEntries(ACTIONS.map((action) => [action, int])),
};

const SyncChanges = {
  type: 'object',
  required: ['jobId', 'action', 'planned', 'total', 'recorded', 'totals', 'offset', 'limit', 'items'],
  additionalProperties: false,
  properties: {
    jobId: str,
    action: {
      ...nullable({ enum: ACTIONS }),
      description: 'null: all changes.',
    },
    planned: { type: 'boolean', description: 'The sync has planned (false while it reads and lists).' },
    total: { ...int, description: 'Changes of this action (identities of this list) in the whole plan.' },
    recorded: { ...int, description: 'Of those, the ones the record keeps (the first 100).' },
    totals: {
      ...actionCounts,
      description: 'Changes per action, and identities per list, in the whole plan.',
    },
    offset: int,
    limit: int,
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'id', 'action'],
        additionalProperties: false,
        properties: {
          kind: { enum: ['user', 'group'] },
          id: {
            ...nullable(str),
            description: 'The source id; null for a platform account (unmatchedOnPlatform).',
          },
          action: { enum: ACTIONS },
          targetId: str,
          attributes: { type: 'array', items: str },
          userName: {
            ...nullable(str),
            description: 'Users: as the plan, the platform or the desired state names it.',
          },
          displayName: { ...nullable(str), description: 'Groups: likewise.' },
          owner: { ...nullable(str), description: 'ownedElsewhere: the input that owns it.' },
          refused: {
            enum: ['same-id', 'account', 'parked'],
            description:
              'ownedElsewhere: a source identity another input holds — its id, its name, externalId or the platform account it matches — or one parked already (a conflict waits).',
          },
          candidates: {
            type: 'array',
            description: 'ambiguous: the platform accounts that fit.',
            items: {
              type: 'object',
              required: ['targetId', 'by', 'name'],
              additionalProperties: false,
              properties: { targetId: str, by: str, name: str },
            },
          },
        },
      },
    },
  },
};

const SyncProgressEvent = {
  type: 'object',
  required: ['jobId', 'state', 'progress'],
  additionalProperties: false,
  properties: {
    jobId: str,
    state: { enum: ['queued', 'running', 'awaiting-approval', 'completed', 'failed'] },
    progress: {
      type: 'object',
      required: ['phase', 'done', 'total'],
      additionalProperties: false,
      properties: { phase: str, done: int, total: int },
    },
    startedAt: time,
    finishedAt: time,
    cancelRequested: { const: true },
  },
};

const AttributeRow = {
  type: 'object',
  required: ['attribute', 'desired', 'platform', 'differs'],
  additionalProperties: false,
  properties: {
    attribute: str,
    desired: { description: 'What the bridge wants on the platform; null when nothing.' },
    platform: { description: 'What the platform holds; null when nothing.' },
    differs: { type: 'boolean', description: 'The next run would change it.' },
  },
};

const MemberRow = {
  type: 'object',
  required: ['id', 'targetId', 'userName', 'desired', 'platform'],
  additionalProperties: false,
  properties: {
    id: { ...nullable(str), description: 'Source id; null for a platform member the bridge does not know.' },
    targetId: { ...nullable(str), description: 'Platform id; null for a member not created there yet.' },
    userName: nullable(str),
    desired: { type: 'boolean', description: 'A member in the desired state.' },
    platform: { type: 'boolean', description: 'A member on the platform.' },
  },
};

const PlatformCopy = {
  type: 'object',
  required: [
    'kind',
    'id',
    'key',
    'targetId',
    'inDesiredState',
    'platform',
    'attributes',
    'differences',
    'resource',
    'readAt',
  ],
  additionalProperties: false,
  properties: {
    kind: { enum: ['user', 'group'] },
    id: str,
    key: str,
    targetId: nullable(str),
    inDesiredState: { type: 'boolean', description: 'false: the identity should not exist (deprovisioned).' },
    platform: {
      enum: ['found', 'not-found', 'not-linked'],
      description:
        'not-found: the platform answers 404 for the recorded id; not-linked: the bridge has no platform id for it yet (nothing was read).',
    },
    attributes: { type: 'array', items: AttributeRow },
    differences: { type: 'array', items: str, description: 'Managed attributes that differ.' },
    members: {
      type: 'object',
      description: 'Groups: members on both sides, those that differ first (at most 500 rows).',
      required: ['desired', 'platform', 'missing', 'extra', 'rows', 'rowsOmitted'],
      additionalProperties: false,
      properties: {
        desired: int,
        platform: int,
        missing: { ...int, description: 'Desired members the platform lacks.' },
        extra: { ...int, description: 'Platform members not desired.' },
        rows: { type: 'array', items: MemberRow },
        rowsOmitted: int,
      },
    },
    resource: { ...nullable({ type: 'object' }), description: "The platform's copy (members in `members`)." },
    readAt: time,
  },
};

export const VIEW_SCHEMAS = { SyncChanges, SyncProgressEvent, PlatformCopy };

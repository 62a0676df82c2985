import { error, guarded, int, json, nullable, ref, str, time } from './openapi.parts.js';

/**
 * The conflict inbox in the admin API's OpenAPI document (openapi.ts lists these routes with the
 * others; the OpenAPI test validates real answers against these schemas): identities two inputs
 * claim (SPEC §6, Ownership) and their resolution.
 */

const owner = {
  ...nullable(str),
  description: 'The input: scim, events, okta or directory:<name> (null: stored before owners existed).',
};

const ConflictParty = {
  type: 'object',
  required: ['owner', 'id', 'name'],
  additionalProperties: false,
  properties: { owner, id: str, name: { ...nullable(str), description: 'userName or displayName' } },
};

const Conflict = {
  type: 'object',
  required: [
    'id',
    'kind',
    'identityKind',
    'status',
    'claimant',
    'holder',
    'account',
    'firstSeenAt',
    'lastSeenAt',
    'resolvedAt',
    'resolution',
  ],
  additionalProperties: false,
  properties: {
    id: str,
    kind: {
      enum: ['same-id', 'account', 'ambiguous'],
      description:
        'same-id: an input sent an id another input owns; account: the userName / displayName, externalId or matching platform account belongs to another input; ambiguous: two unmanaged platform accounts fit.',
    },
    identityKind: { enum: ['user', 'group'] },
    status: {
      enum: ['open', 'ignored', 'linked', 'withdrawn'],
      description: 'withdrawn: the claimant was deleted by its input.',
    },
    claimant: { ...ref('ConflictParty'), description: 'The newcomer: parked (same-id: not stored).' },
    holder: nullable(ref('ConflictParty')),
    account: {
      type: 'object',
      required: ['targetId', 'by'],
      additionalProperties: false,
      properties: {
        targetId: { ...nullable(str), description: 'The platform account, once there is one.' },
        by: { ...str, description: 'What matched: id, externalId, userName, displayName or listing.' },
        candidates: {
          type: 'array',
          items: {
            type: 'object',
            required: ['targetId', 'by', 'name'],
            additionalProperties: false,
            properties: { targetId: str, by: str, name: nullable(str) },
          },
        },
      },
    },
    desired: { type: 'object', description: 'same-id: what the claimant sent.' },
    firstSeenAt: nullable(time),
    lastSeenAt: nullable(time),
    resolvedAt: nullable(time),
    resolution: nullable({
      type: 'object',
      required: ['action', 'targetId'],
      additionalProperties: false,
      properties: { action: { enum: ['link', 'ignore'] }, targetId: nullable(str) },
    }),
  },
};

const ConflictList = {
  type: 'object',
  required: ['total', 'items', 'nextCursor'],
  additionalProperties: false,
  properties: { total: int, items: { type: 'array', items: ref('Conflict') }, nextCursor: nullable(str) },
};

export const CONFLICT_SCHEMAS = { ConflictParty, Conflict, ConflictList };

export const CONFLICT_PATHS = {
  '/admin/conflicts': {
    get: {
      operationId: 'listConflicts',
      summary: 'Identities two inputs claim, most recently seen first',
      parameters: [
        {
          name: 'status',
          in: 'query',
          schema: { enum: ['open', 'ignored', 'all'], default: 'open' },
        },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        {
          name: 'cursor',
          in: 'query',
          description: 'nextCursor of the previous page',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': json(ref('ConflictList'), 'A page of conflicts'),
        '400': error('Invalid query'),
        ...guarded,
      },
    },
  },
  '/admin/conflicts/{id}/resolve': {
    post: {
      operationId: 'resolveConflict',
      summary: 'Link (the claimant’s input becomes the owner of the platform account) or ignore a conflict',
      description:
        'link: same-id — the identity takes what the claimant sent and its owner; otherwise whoever holds the account loses the mapping (never deprovisioned) and is parked, and the claimant adopts the account (an ambiguous conflict names it in targetId) and is reconciled. ignore: the claimant stays parked and is no longer reported; an ignored conflict can still be linked.',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['action'],
              additionalProperties: false,
              properties: {
                action: { enum: ['link', 'ignore'] },
                targetId: { ...str, description: 'Ambiguous: the candidate platform account to link.' },
              },
            },
          },
        },
      },
      responses: {
        '200': json(ref('Conflict'), 'The conflict, resolved'),
        '400': error('Invalid body (an ambiguous link without a candidate targetId)'),
        '404': error('No such conflict'),
        '409': error('Already resolved, or the claimant is gone'),
        '415': error('Body is not JSON'),
        ...guarded,
      },
    },
  },
};

import { error, guarded, json, ref } from './openapi.parts.js';
import { CHANGE_ACTIONS, LIST_ACTIONS } from './sync-lists.js';

/**
 * The admin routes the dashboard's views read (openapi.ts lists them with the others): a sync's
 * changes by page, its live progress, and an identity's copy on the platform.
 */

const jobId = {
  name: 'jobId',
  in: 'path',
  required: true,
  description: 'The sync id returned by POST /admin/sync.',
  schema: { type: 'string' },
};
const noSync = error('No such sync (also any id that is not a sync id)');

const changes = {
  get: {
    operationId: 'listSyncChanges',
    summary:
      "A page of a sync's planned changes, or of the lists beside them, each with its userName / displayName",
    description:
      "The record keeps the first 100 changes of the plan, and the first 100 of each list: `recorded` of the `total` can be paged through. The lists: `ownedElsewhere` (identities the run leaves to other inputs: theirs, with their owner, and the source's identities another input holds, marked `refused`), and a link-only run's `linked`, `unmatchedInSource`, `unmatchedOnPlatform` (platform accounts: `id` null, `targetId` set) and `ambiguous` (with the `candidates`).",
    parameters: [
      jobId,
      {
        name: 'action',
        in: 'query',
        schema: { enum: [...CHANGE_ACTIONS, ...LIST_ACTIONS] },
        description: 'Only changes of this action, or one list; all changes when absent.',
      },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
    ],
    responses: {
      '200': json(ref('SyncChanges'), 'A page of changes'),
      '400': error('Invalid query'),
      '404': noSync,
      ...guarded,
    },
  },
};

const events = {
  get: {
    operationId: 'streamSyncProgress',
    summary: "A sync's progress as server-sent events, until it ends",
    description:
      'text/event-stream: a `progress` event at once and whenever the state or progress changes (the record is read every 200 ms); `end` once the sync completed, failed or waits for approval, then the stream closes; `error` if Redis cannot be read. Each `data` is a SyncProgressEvent. Send the admin token in the Authorization header (read the stream with fetch: EventSource cannot send it).',
    parameters: [jobId],
    responses: {
      '200': {
        description: 'The event stream',
        content: {
          'text/event-stream': {
            schema: {
              type: 'string',
              description:
                'Events `progress`, `end` (data: SyncProgressEvent) and `error` (data: {code, message}).',
            },
          },
        },
      },
      '404': noSync,
      ...guarded,
    },
  },
};

const platformCopy = {
  get: {
    operationId: 'getIdentityOnPlatform',
    summary: 'The identity as the platform holds it now, beside its desired state, differences marked',
    description:
      'Reads the resource from the platform through its SCIM API (bounded by a 10 s deadline). Nothing is read when the bridge has no platform id for it (`not-linked`).',
    parameters: [
      {
        name: 'kind',
        in: 'path',
        required: true,
        description: 'users or groups',
        schema: { type: 'string', enum: ['users', 'groups'] },
      },
      {
        name: 'key',
        in: 'path',
        required: true,
        description: 'The source id, or the userName / displayName (case-insensitive).',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': json(ref('PlatformCopy'), 'The comparison'),
      '400': error('Unknown kind'),
      '404': error('No such identity'),
      '502': error(
        'The platform could not be read (down, refusing the token, too slow): the message says why',
      ),
      ...guarded,
    },
  },
};

export const VIEW_PATHS = {
  '/admin/sync/{jobId}/changes': changes,
  '/admin/sync/{jobId}/events': events,
  '/admin/identities/{kind}/{key}/platform': platformCopy,
};

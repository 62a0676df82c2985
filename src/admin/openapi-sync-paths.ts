import { SyncChanges, SyncChangesQuery } from './schemas/sync-changes.schema.js';
import { SyncPreviewPage, SyncPreviewQuery } from './schemas/sync-preview.schema.js';
import {
  NDJSON_TYPES,
  SnapshotNdjson,
  SyncEventStream,
  SyncList,
  SyncListQuery,
  SyncParams,
  SyncStartBody,
  SyncStarted,
  SyncView,
} from './schemas/sync.schema.js';
import { error, guarded, noSync, ok, syncAction, type AdminOperation } from './openapi-operation.js';

/** The full reconciliations' operations (SPEC §4, §6) in the admin API's OpenAPI document. */

export const SYNC_PATHS: readonly AdminOperation[] = [
  {
    method: 'post',
    path: '/admin/sync',
    operationId: 'startSync',
    summary: 'Start a full reconciliation (SPEC §6)',
    description:
      'Without a snapshot it reconciles the directory source (or the current desired state); `input` names another input to read in full. A second request while one runs returns its jobId (started: false); one with a snapshot gets 409 before its body is read, and a link-only one gets 409 too. `linkOnly`: list the platform and the source, record every match as managed and write nothing to the platform (with `dryRun`: report what it would link and record nothing). A snapshot comes as JSON (`{"snapshot": {...}}`, up to SNAPSHOT_LIMIT_BYTES) or, for large directories, as NDJSON (`application/x-ndjson`, `application/ndjson` or JSON Lines `application/jsonl`) read as a stream (up to SNAPSHOT_STREAM_LIMIT_BYTES; gzip or deflate accepted): an optional first line `{"options": {"dryRun": …, "allowEmpty": …, "linkOnly": …}}`, then one `{"user": {...}}` or `{"group": {...}}` per line. An invalid snapshot gets 400 listing the problems (an NDJSON line named as `line N: …`) and changes nothing.',
    body: {
      required: false,
      content: {
        'application/json': SyncStartBody,
        ...Object.fromEntries(NDJSON_TYPES.map((type) => [type, SnapshotNdjson])),
      },
    },
    answers: {
      '202': ok('Started, or the running sync', SyncStarted),
      '400': error('Invalid body or snapshot (problems listed)'),
      '409': error('A sync is running and a snapshot was pushed, or a link-only run was asked'),
      '413': error('Body over SNAPSHOT_LIMIT_BYTES (JSON) or SNAPSHOT_STREAM_LIMIT_BYTES (NDJSON)'),
      '415': error('Body is neither JSON nor NDJSON (the message names the types taken)'),
      ...guarded,
    },
  },
  {
    method: 'get',
    path: '/admin/sync',
    operationId: 'listSyncs',
    summary: 'Recent full reconciliations, newest first',
    query: SyncListQuery,
    answers: {
      '200': ok('Sync history', SyncList),
      '400': error('limit is not an integer from 1 to 100'),
      ...guarded,
    },
  },
  {
    method: 'get',
    path: '/admin/sync/{jobId}',
    operationId: 'getSync',
    summary: 'State, progress, plan and summary of a sync',
    params: SyncParams,
    answers: { '200': ok('The sync', SyncView), '404': noSync, ...guarded },
  },
  syncAction(
    'approveSync',
    '/admin/sync/{jobId}/approve',
    'Release a sync held by DEPROVISION_LIMIT or SOURCE_SHRINK_LIMIT: it plans again against a fresh listing and applies the whole run',
  ),
  syncAction(
    'cancelSync',
    '/admin/sync/{jobId}/cancel',
    'Cancel a queued, running or held sync (writes already sent stay; a held sync has applied nothing and never will)',
  ),
  {
    method: 'get',
    path: '/admin/sync/{jobId}/preview',
    operationId: 'listSyncPreview',
    summary:
      'A page of what a scope and mapping change does, by name: identities entering or leaving the scope, changed, unmappable, colliding',
    description:
      "For a preview (POST /admin/sync with `dryRun` and `candidate`) or a sync whose configuration changed since its input's last applied sync. `changed` entries list each attribute before → after; `unmappable` ones say why; `collisions` name the identity that has the name first. The record keeps the first 500 of each category: `recorded` of the `total`.",
    params: SyncParams,
    query: SyncPreviewQuery,
    answers: {
      '200': ok('A page of the preview', SyncPreviewPage),
      '400': error('Invalid query'),
      '404': error(
        'No such sync, or a sync that recorded no preview (neither a preview nor a changed configuration)',
      ),
      ...guarded,
    },
  },
  {
    method: 'get',
    path: '/admin/sync/{jobId}/changes',
    operationId: 'listSyncChanges',
    summary:
      "A page of a sync's planned changes, or of the lists beside them, each with its userName / displayName",
    description:
      "The record keeps the first 100 changes of the plan, and the first 100 of each list: `recorded` of the `total` can be paged through. The lists: `ownedElsewhere` (identities the run leaves to other inputs: theirs, with their owner, and the source's identities another input holds, marked `refused`), and a link-only run's `linked`, `unmatchedInSource`, `unmatchedOnPlatform` (platform accounts: `id` null, `targetId` set) and `ambiguous` (with the `candidates`).",
    params: SyncParams,
    query: SyncChangesQuery,
    answers: {
      '200': ok('A page of changes', SyncChanges),
      '400': error('Invalid query'),
      '404': noSync,
      ...guarded,
    },
  },
  {
    method: 'get',
    path: '/admin/sync/{jobId}/events',
    operationId: 'streamSyncProgress',
    summary: "A sync's progress as server-sent events, until it ends",
    description:
      'text/event-stream: a `progress` event at once and whenever the state or progress changes (the record is read every 200 ms); `end` once the sync completed, failed or waits for approval, then the stream closes; `error` if Redis cannot be read. Each `data` is a SyncProgressEvent. Send the admin token in the Authorization header (read the stream with fetch: EventSource cannot send it).',
    params: SyncParams,
    answers: {
      '200': { description: 'The event stream', body: SyncEventStream, type: 'text/event-stream' },
      '404': noSync,
      ...guarded,
    },
  },
];

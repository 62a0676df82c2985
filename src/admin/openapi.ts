import { Router } from 'express';
import { CONFLICT_PATHS } from './openapi.conflicts.js';
import { error, guarded, json, ref } from './openapi.parts.js';
import { ADMIN_SCHEMAS } from './openapi.schemas.js';
import { VIEW_PATHS } from './openapi.view-paths.js';

/**
 * The OpenAPI 3.1 document of the admin API, served at GET /admin/openapi.json. Every route under
 * /admin is listed here; the route-table test checks that the two agree, and the OpenAPI test
 * validates real responses against these schemas.
 */

const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
const jobId = pathParam('jobId', 'The sync id returned by POST /admin/sync.');
const syncResponse = json(ref('SyncView'), 'The sync');

const syncStart = {
  post: {
    operationId: 'startSync',
    summary: 'Start a full reconciliation (SPEC §6)',
    description:
      'Without a snapshot it reconciles the directory source (or the current desired state). A second request while one runs returns its jobId (started: false); one with a snapshot gets 409 before its body is read, and a link-only one gets 409 too. `linkOnly`: list the platform and the source, record every match as managed and write nothing to the platform (with `dryRun`: report what it would link and record nothing). A snapshot comes as JSON (`{"snapshot": {...}}`, up to SNAPSHOT_LIMIT_BYTES) or, for large directories, as NDJSON read as a stream (up to SNAPSHOT_STREAM_LIMIT_BYTES; gzip or deflate accepted): an optional first line `{"options": {"dryRun": …, "allowEmpty": …, "linkOnly": …}}`, then one `{"user": {...}}` or `{"group": {...}}` per line. An invalid snapshot gets 400 listing the problems (an NDJSON line named as `line N: …`) and changes nothing.',
    requestBody: {
      required: false,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: {
              dryRun: { type: 'boolean', description: 'Compute and report the plan; write nothing.' },
              snapshot: { type: 'object', description: 'A directory snapshot (SPEC §5.4).' },
              allowEmpty: {
                type: 'boolean',
                description:
                  'The directory really is empty: a source listing no users is not refused (by default it is, with error source_empty, while the bridge manages users).',
              },
              linkOnly: {
                type: 'boolean',
                description:
                  'Onboarding: record the matches between source and platform as managed (externalId first, then userName / displayName) and write nothing to the platform; never deprovisions, never held.',
              },
            },
          },
        },
        'application/x-ndjson': {
          schema: {
            type: 'string',
            description:
              'One JSON object per line: optionally first {"options": {"dryRun": boolean, "allowEmpty": boolean, "linkOnly": boolean}}, then {"user": {...}} or {"group": {...}} (SPEC §5.4), in any order.',
          },
        },
      },
    },
    responses: {
      '202': json(
        {
          type: 'object',
          required: ['jobId', 'started'],
          additionalProperties: false,
          properties: { jobId: { type: 'string' }, started: { type: 'boolean' } },
        },
        'Started, or the running sync',
      ),
      '400': error('Invalid body or snapshot (problems listed)'),
      '409': error('A sync is running and a snapshot was pushed, or a link-only run was asked'),
      '413': error('Body over SNAPSHOT_LIMIT_BYTES (JSON) or SNAPSHOT_STREAM_LIMIT_BYTES (NDJSON)'),
      '415': error('Body is neither JSON nor NDJSON'),
      ...guarded,
    },
  },
  get: {
    operationId: 'listSyncs',
    summary: 'Recent full reconciliations, newest first',
    parameters: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    ],
    responses: {
      '200': json(
        {
          type: 'object',
          required: ['syncs'],
          additionalProperties: false,
          properties: { syncs: { type: 'array', items: ref('SyncView') } },
        },
        'Sync history',
      ),
      '400': error('limit is not an integer from 1 to 100'),
      ...guarded,
    },
  },
};

const syncAction = (operationId: string, summary: string) => ({
  post: {
    operationId,
    summary,
    parameters: [jobId],
    responses: {
      '202': syncResponse,
      '404': error('No such sync (also any id that is not a sync id)'),
      '409': error('The sync is not in a state that allows this'),
      ...guarded,
    },
  },
});

const failureFilters = {
  kind: { type: 'string', enum: ['user', 'group'] },
  code: { type: 'string', pattern: '^[a-z][a-z_]{0,63}$' },
};

const paths = {
  '/admin/status': {
    get: {
      operationId: 'getStatus',
      summary: 'Health, queue depths, last sync, counts',
      responses: { '200': json(ref('Status'), 'Status'), ...guarded },
    },
  },
  '/admin/sync': syncStart,
  '/admin/sync/{jobId}': {
    get: {
      operationId: 'getSync',
      summary: 'State, progress, plan and summary of a sync',
      parameters: [jobId],
      responses: {
        '200': syncResponse,
        '404': error('No such sync (also any id that is not a sync id)'),
        ...guarded,
      },
    },
  },
  '/admin/sync/{jobId}/approve': syncAction(
    'approveSync',
    'Release a sync held by DEPROVISION_LIMIT or SOURCE_SHRINK_LIMIT: it plans again against a fresh listing and applies the whole run',
  ),
  '/admin/sync/{jobId}/cancel': syncAction(
    'cancelSync',
    'Cancel a queued, running or held sync (writes already sent stay; a held sync has applied nothing and never will)',
  ),
  '/admin/identities/{kind}/{key}': {
    get: {
      operationId: 'getIdentity',
      summary: "One identity's trace: desired state, target id, last outcome, history",
      parameters: [
        { ...pathParam('kind', 'users or groups'), schema: { type: 'string', enum: ['users', 'groups'] } },
        pathParam(
          'key',
          "The id (the bridge's or the source's), the userName / displayName (case-insensitive), the externalId the input sent (the IdP's id), or the platform id.",
        ),
      ],
      responses: {
        '200': json(ref('Identity'), 'The identity'),
        '400': error('Unknown kind'),
        '404': error('No such identity'),
        ...guarded,
      },
    },
  },
  '/admin/failures': {
    get: {
      operationId: 'listFailures',
      summary: 'Identities in permanent failure, newest first',
      parameters: [
        { name: 'kind', in: 'query', schema: failureFilters.kind },
        { name: 'code', in: 'query', description: 'Error code', schema: failureFilters.code },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
        {
          name: 'cursor',
          in: 'query',
          description: 'nextCursor of the previous page',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': json(ref('FailureList'), 'A page of failures'),
        '400': error('Invalid query'),
        ...guarded,
      },
    },
  },
  '/admin/failures/retry': {
    post: {
      operationId: 'retryFailures',
      summary: 'Reconcile failed identities again: all (optionally of a kind / code), or the listed keys',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              oneOf: [
                {
                  type: 'object',
                  required: ['all'],
                  additionalProperties: false,
                  properties: { all: { const: true }, ...failureFilters },
                },
                {
                  type: 'object',
                  required: ['keys'],
                  additionalProperties: false,
                  properties: {
                    keys: {
                      type: 'array',
                      minItems: 1,
                      maxItems: 10000,
                      items: { type: 'string', pattern: '^(user|group):.+' },
                    },
                  },
                },
              ],
            },
          },
        },
      },
      responses: {
        '202': json(
          {
            type: 'object',
            required: ['retried'],
            additionalProperties: false,
            properties: { retried: { type: 'integer', minimum: 0 } },
          },
          'Enqueued',
        ),
        '400': error('Invalid body'),
        '415': error('Body is not JSON'),
        ...guarded,
      },
    },
  },
  '/admin/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1 document'), ...guarded },
    },
  },
  ...VIEW_PATHS,
  ...CONFLICT_PATHS,
};

export const ADMIN_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'scim-bridge admin API',
    version: '1',
    description:
      'Operating the bridge: status, full reconciliations, identity traces, failures and conflicts between inputs. Every route needs `Authorization: Bearer ADMIN_TOKEN`. Errors are `{"error": {"code", "message"}}`.',
  },
  servers: [{ url: '/' }],
  security: [{ adminToken: [] }],
  paths,
  components: {
    securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } },
    schemas: ADMIN_SCHEMAS,
  },
} as const;

export function adminOpenApiRouter(): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(ADMIN_OPENAPI);
  });
  return router;
}

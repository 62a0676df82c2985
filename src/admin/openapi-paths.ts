import {
  ConflictList,
  ConflictListQuery,
  ConflictParams,
  Conflict,
  ConflictResolveBody,
} from './schemas/conflicts.schema.js';
import { FailureList, FailureListQuery, FailureRetry, FailureRetryBody } from './schemas/failures.schema.js';
import { Identity, IdentityParams } from './schemas/identity.schema.js';
import { PlatformCopy } from './schemas/platform-copy.schema.js';
import { ProvisionBody, ProvisionParams, ProvisionResult } from './schemas/provision.schema.js';
import { OpenApiDocument } from './schemas/shapes.js';
import { Status } from './schemas/status.schema.js';
import { error, guarded, ok, type AdminOperation } from './openapi-operation.js';
import { SYNC_PATHS } from './openapi-sync-paths.js';

/**
 * The admin API's operations: method, path, words, and which schemas (schemas/) describe their
 * parameters, bodies and answers. openapi.ts turns this list into the OpenAPI document; the route
 * test checks that it names every route the routers mount, and validates real answers against it.
 */

const IDENTITY_PATHS: AdminOperation[] = [
  {
    method: 'get',
    path: '/admin/identities/{kind}/{key}',
    operationId: 'getIdentity',
    summary: "One identity's trace: desired state, target id, last outcome, history",
    params: IdentityParams,
    answers: {
      '200': ok('The identity', Identity),
      '400': error('Unknown kind'),
      '404': error('No such identity'),
      ...guarded,
    },
  },
  {
    method: 'get',
    path: '/admin/identities/{kind}/{key}/platform',
    operationId: 'getIdentityOnPlatform',
    summary: 'The identity as the platform holds it now, beside its desired state, differences marked',
    description:
      'Reads the resource from the platform through its SCIM API (bounded by a 10 s deadline). Nothing is read when the bridge has no platform id for it (`not-linked`).',
    params: IdentityParams,
    answers: {
      '200': ok('The comparison', PlatformCopy),
      '400': error('Unknown kind'),
      '404': error('No such identity'),
      '502': error(
        'The platform could not be read (down, refusing the token, too slow): the message says why',
      ),
      ...guarded,
    },
  },
  {
    method: 'post',
    path: '/admin/identities/{kind}/{key}/provision',
    operationId: 'provisionIdentity',
    summary:
      "Provision on demand: read one identity from its input's source now, show each step, apply it alone",
    description:
      "Reads the user or group from its input's source by its key, puts it through the input's scope and mapping (a group's members through the user scope), finds its platform account with look-ups only, and says what applying does (create, update with the attributes before → after, none, conflict, or remove-would-happen: the removal the next full sync makes — provisioning on demand never removes). Unless `dryRun`, applies it alone — a group's member users first — through the desired state and the reconcile pipeline, and waits up to `waitSeconds` for the platform to match. A dry run writes nothing and sends the platform look-ups only.",
    params: ProvisionParams,
    body: { required: false, content: { 'application/json': ProvisionBody } },
    answers: {
      '200': ok('The steps, and what was applied', ProvisionResult),
      '400': error('Invalid body, or no input (or not the one named) can be read one identity at a time'),
      '404': error('The source does not hold the identity (nothing changed), or provisioning is not enabled'),
      '415': error('Body is not JSON'),
      '502': error('The source or the platform could not be read: the message says why'),
      ...guarded,
    },
  },
  {
    method: 'get',
    path: '/admin/failures',
    operationId: 'listFailures',
    summary: 'Identities in permanent failure, newest first',
    query: FailureListQuery,
    answers: { '200': ok('A page of failures', FailureList), '400': error('Invalid query'), ...guarded },
  },
  {
    method: 'post',
    path: '/admin/failures/retry',
    operationId: 'retryFailures',
    summary: 'Reconcile failed identities again: all (optionally of a kind / code), or the listed keys',
    body: { required: true, content: { 'application/json': FailureRetryBody } },
    answers: {
      '202': ok('Enqueued', FailureRetry),
      '400': error('Invalid body'),
      '415': error('Body is not JSON'),
      ...guarded,
    },
  },
];

const CONFLICT_PATHS: AdminOperation[] = [
  {
    method: 'get',
    path: '/admin/conflicts',
    operationId: 'listConflicts',
    summary: 'Identities two inputs claim, most recently seen first',
    query: ConflictListQuery,
    answers: { '200': ok('A page of conflicts', ConflictList), '400': error('Invalid query'), ...guarded },
  },
  {
    method: 'post',
    path: '/admin/conflicts/{id}/resolve',
    operationId: 'resolveConflict',
    summary: 'Link (the claimant’s input becomes the owner of the platform account) or ignore a conflict',
    description:
      'link: same-id — the identity takes what the claimant sent and its owner; otherwise whoever holds the account loses the mapping (never deprovisioned) and is parked, and the claimant adopts the account (an ambiguous conflict names it in targetId) and is reconciled. ignore: the claimant stays parked and is no longer reported; an ignored conflict can still be linked.',
    params: ConflictParams,
    body: { required: true, content: { 'application/json': ConflictResolveBody } },
    answers: {
      '200': ok('The conflict, resolved', Conflict),
      '400': error('Invalid body (an ambiguous link without a candidate targetId)'),
      '404': error('No such conflict'),
      '409': error('Already resolved, or the claimant is gone'),
      '415': error('Body is not JSON'),
      ...guarded,
    },
  },
];

export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  {
    method: 'get',
    path: '/admin/status',
    operationId: 'getStatus',
    summary: 'Health, queue depths, last sync, counts',
    answers: { '200': ok('Status', Status), ...guarded },
  },
  ...SYNC_PATHS,
  ...IDENTITY_PATHS,
  ...CONFLICT_PATHS,
  {
    method: 'get',
    path: '/admin/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This document',
    answers: { '200': ok('OpenAPI 3.1 document', OpenApiDocument), ...guarded },
  },
];

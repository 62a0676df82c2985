import { counts, int, nullable, str } from './openapi.parts.js';

/**
 * The JSON Schemas of what a sync's plan says of other inputs (SPEC §6, Ownership) and of a
 * link-only run's lists (openapi.sync-schemas.ts holds the rest of the plan).
 */

const perKind = {
  type: 'object',
  required: ['users', 'groups'],
  additionalProperties: false,
  properties: { users: int, groups: int },
};

export const OwnedElsewhere = {
  type: 'object',
  description:
    "What a run that reads a source leaves to the other inputs (SPEC §6, Ownership): their desired identities, never deprovisioned, deleted or counted against DEPROVISION_LIMIT; and the source's identities another input holds (`refused`: its id, or the platform account they match — a conflict is recorded). `sample`: the refused ones first, then other inputs' identities, 100 at most (paged at GET /admin/sync/{jobId}/changes?action=ownedElsewhere).",
  required: ['users', 'groups', 'owners', 'refused', 'sample'],
  additionalProperties: false,
  properties: {
    users: int,
    groups: int,
    owners: {
      type: 'object',
      additionalProperties: perKind,
      description: 'Per owner (scim, events, okta, directory:<name>).',
    },
    refused: perKind,
    sample: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'id', 'owner', 'name'],
        additionalProperties: false,
        properties: {
          kind: { enum: ['user', 'group'] },
          id: str,
          owner: nullable(str),
          name: nullable(str),
          refused: { enum: ['same-id', 'account', 'parked'] },
          targetId: str,
        },
      },
    },
  },
};

const LinkItem = {
  type: 'object',
  required: ['kind', 'id', 'name'],
  additionalProperties: false,
  properties: {
    kind: { enum: ['user', 'group'] },
    id: { ...nullable(str), description: 'null for a platform account (unmatchedOnPlatform).' },
    name: nullable(str),
    targetId: str,
    candidates: {
      type: 'array',
      items: {
        type: 'object',
        required: ['targetId', 'by', 'name'],
        additionalProperties: false,
        properties: { targetId: str, by: str, name: str },
      },
    },
  },
};

const linkCounts = counts(['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous']);

export const LinkOnly = {
  type: 'object',
  description:
    'A link-only run (SPEC §6): source identities linked to a platform account and recorded as managed, unmatched in the source (a normal sync would create them), platform accounts unmatched (no identity manages them: left alone), ambiguous (two accounts fit: sent to the conflict inbox). `samples`: the first 100 of each list, paged at GET /admin/sync/{jobId}/changes?action=….',
  required: ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous', 'users', 'groups', 'samples'],
  additionalProperties: false,
  properties: {
    linked: int,
    unmatchedInSource: int,
    unmatchedOnPlatform: int,
    ambiguous: int,
    users: linkCounts,
    groups: linkCounts,
    samples: {
      type: 'object',
      required: ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous'],
      additionalProperties: false,
      properties: Object.fromEntries(
        ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous'].map((list) => [
          list,
          { type: 'array', items: LinkItem },
        ]),
      ),
    },
  },
};

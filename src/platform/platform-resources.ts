import { z } from 'zod';
import { BridgeError } from '../domain/errors.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { ObservedUser } from '../domain/user-diff.js';

/**
 * The platform's SCIM resources as the bridge reads them (seed document; RFC 7643 §4). Parsed with
 * zod at the boundary; unknown attributes pass through untouched.
 */

export const targetUserSchema = z.looseObject({
  id: z.string().min(1),
  userName: z.string(),
  externalId: z.string().nullish(),
  name: z.looseObject({ givenName: z.string().nullish(), familyName: z.string().nullish() }).nullish(),
  emails: z
    .array(z.looseObject({ value: z.string(), primary: z.boolean().nullish(), type: z.string().nullish() }))
    .nullish(),
  active: z.boolean().nullish(),
});

export const targetGroupSchema = z.looseObject({
  id: z.string().min(1),
  displayName: z.string(),
  externalId: z.string().nullish(),
  members: z.array(z.looseObject({ value: z.string(), display: z.string().nullish() })).nullish(),
});

export type TargetUser = z.infer<typeof targetUserSchema>;
export type TargetGroup = z.infer<typeof targetGroupSchema>;

export const listResponseSchema = z.looseObject({
  totalResults: z.number().int().min(0),
  startIndex: z.number().int().optional(),
  itemsPerPage: z.number().int().min(0).optional(),
  Resources: z.array(z.unknown()).optional(),
});

export interface ServiceProviderSettings {
  patchSupported: boolean;
  /** The largest page the platform says it returns (filter.maxResults), if it says. */
  maxResults: number | undefined;
}

const spcSchema = z.looseObject({
  patch: z.looseObject({ supported: z.boolean() }).optional(),
  filter: z
    .looseObject({ supported: z.boolean().optional(), maxResults: z.number().int().positive().optional() })
    .optional(),
});

/** RFC 7643 §5; a config that cannot be read is taken as "PATCH supported", the common case. */
export function parseServiceProviderConfig(body: unknown): ServiceProviderSettings {
  const parsed = spcSchema.safeParse(body);
  if (!parsed.success) return { patchSupported: true, maxResults: undefined };
  return { patchSupported: parsed.data.patch?.supported ?? true, maxResults: parsed.data.filter?.maxResults };
}

export type { PatchOperation as ScimPatchOperation } from '../domain/scim-patch.js';

/** A resource as a PUT body: everything it holds but what the server assigns (RFC 7643 §3.1). */
export function replaceableBody(resource: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, meta: _meta, schemas: _schemas, ...rest } = resource;
  return rest;
}

/**
 * A listed user read straight into its compact form, checked by hand: a listing of 100,000 parsed
 * by zod and then compacted would allocate every resource twice.
 */
export function readListedUser(value: unknown): ObservedUser {
  const r = record(value, 'user');
  const name = optional(r.name, 'object') as Record<string, unknown> | undefined;
  const emails = optional(r.emails, 'array') as unknown[] | undefined;
  return {
    id: text(r.id, 'id'),
    userName: text(r.userName, 'userName'),
    externalId: (optional(r.externalId, 'string') as string | undefined) ?? null,
    ...(name
      ? {
          name: {
            givenName: (optional(name.givenName, 'string') as string | undefined) ?? null,
            familyName: (optional(name.familyName, 'string') as string | undefined) ?? null,
          },
        }
      : {}),
    ...(emails
      ? {
          emails: emails.map((e) => {
            const email = record(e, 'email');
            return {
              value: text(email.value, 'emails.value'),
              primary: (optional(email.primary, 'boolean') as boolean | undefined) ?? null,
            };
          }),
        }
      : {}),
    active: (optional(r.active, 'boolean') as boolean | undefined) ?? null,
  };
}

export function readListedGroup(value: unknown): ObservedGroup {
  const r = record(value, 'group');
  const members = (optional(r.members, 'array') as unknown[] | undefined) ?? [];
  return {
    id: text(r.id, 'id'),
    displayName: text(r.displayName, 'displayName'),
    externalId: (optional(r.externalId, 'string') as string | undefined) ?? null,
    members: members.map((m) => ({ value: text(record(m, 'member').value, 'members.value') })),
  };
}

function unreadable(what: string): BridgeError {
  return new BridgeError(
    'target_bad_response',
    `The platform listed a resource the bridge cannot read (${what})`,
  );
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unreadable(what);
  return value as Record<string, unknown>;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw unreadable(what);
  return value;
}

/** undefined for absent or null, the value when of the type, otherwise unreadable. */
function optional(value: unknown, type: 'string' | 'boolean' | 'object' | 'array'): unknown {
  if (value === undefined || value === null) return undefined;
  const ok = type === 'array' ? Array.isArray(value) : typeof value === type && !Array.isArray(value);
  if (!ok) throw unreadable(type);
  return value;
}

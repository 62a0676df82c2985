import type { DirectMembers } from '../../../domain/group-graph.js';
import type { HeldGroup } from '../../../domain/held-groups.js';
import { lookupAttribute } from '../../../domain/scim-filter.js';

/**
 * Upstream SCIM resources (RFC 7643 §4) as snapshot items. Attribute names are matched
 * case-insensitively (RFC 7643 §2.1). Nothing is checked here beyond picking the attributes: the
 * snapshot validation names what is wrong. The upstream `id` becomes the snapshot id (and so the
 * target's externalId); the upstream's own `externalId` belongs to whoever provisioned the upstream
 * and is not copied.
 */

export function snapshotUser(resource: unknown): Record<string, unknown> {
  return {
    id: lookupAttribute(resource, 'id'),
    userName: lookupAttribute(resource, 'userName'),
    name: pickName(lookupAttribute(resource, 'name')),
    emails: pickEmails(lookupAttribute(resource, 'emails')),
    active: toBoolean(lookupAttribute(resource, 'active')),
  };
}

/** A member of an upstream group (RFC 7643 §4.2): a user's or a group's id, and its type if given. */
export interface ScimMember {
  value: string;
  type?: string;
}

/** A listed group reduced to what the snapshot needs, until every group is read. */
export function heldGroup(resource: unknown): HeldGroup<ScimMember> {
  const members: ScimMember[] = [];
  const listed = lookupAttribute(resource, 'members');
  for (const member of Array.isArray(listed) ? (listed as unknown[]) : []) {
    const value = lookupAttribute(member, 'value');
    if (typeof value !== 'string') continue;
    const type = lookupAttribute(member, 'type');
    members.push(typeof type === 'string' ? { value, type } : { value });
  }
  const id = lookupAttribute(resource, 'id');
  const item = { id, displayName: lookupAttribute(resource, 'displayName') };
  return { key: resourceLabel(id), item, label: resourceLabel(id), members };
}

/**
 * A group's direct members: a member not typed `User` that is a listed group (`held`) is that
 * group, else a listed user (`users`) is that user; other values are dropped.
 */
export function directMembers(
  members: readonly ScimMember[],
  users: ReadonlySet<string>,
  held: (key: string) => boolean,
): DirectMembers {
  const direct = { users: [] as string[], groups: [] as string[] };
  for (const { value, type } of members) {
    if (type !== 'User' && held(value)) direct.groups.push(value);
    else if (users.has(value)) direct.users.push(value);
  }
  return direct;
}

/** Problems name resources by their upstream id; by position when they have none. */
export function resourceLabel(id: unknown): string | undefined {
  return typeof id === 'string' ? id : undefined;
}

function pickName(name: unknown): unknown {
  if (typeof name !== 'object' || name === null) return name;
  return { givenName: lookupAttribute(name, 'givenName'), familyName: lookupAttribute(name, 'familyName') };
}

function pickEmails(emails: unknown): unknown {
  if (!Array.isArray(emails)) return emails;
  return (emails as unknown[]).map((email) => {
    if (typeof email !== 'object' || email === null) return email;
    return {
      value: lookupAttribute(email, 'value'),
      primary: toBoolean(lookupAttribute(email, 'primary')),
      type: lookupAttribute(email, 'type'),
    };
  });
}

/** Booleans as some servers send them: `"True"`, `"false"`. Anything else is left for validation. */
function toBoolean(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const lower = value.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : value;
}

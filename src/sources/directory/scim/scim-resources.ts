import { lookupAttribute } from '../../../domain/scim-filter.js';
import type { GroupLinks } from '../ldap/nested-groups.js';

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

/** A listed group reduced to what the snapshot needs, until every group is read. */
export interface HeldGroup {
  id: unknown;
  displayName: unknown;
  members: { value: string; type?: string }[];
}

export function heldGroup(resource: unknown): HeldGroup {
  const members: HeldGroup['members'] = [];
  const listed = lookupAttribute(resource, 'members');
  for (const member of Array.isArray(listed) ? (listed as unknown[]) : []) {
    const value = lookupAttribute(member, 'value');
    if (typeof value !== 'string') continue;
    const type = lookupAttribute(member, 'type');
    members.push(typeof type === 'string' ? { value, type } : { value });
  }
  return {
    id: lookupAttribute(resource, 'id'),
    displayName: lookupAttribute(resource, 'displayName'),
    members,
  };
}

/** A group's direct members: user ids, and the positions of member groups; other values are dropped. */
export function groupLinks(
  group: HeldGroup,
  userIds: ReadonlySet<string>,
  groupPositions: ReadonlyMap<string, number>,
): GroupLinks {
  const users: string[] = [];
  const groups: number[] = [];
  for (const { value, type } of group.members) {
    const position = groupPositions.get(value);
    if (type !== 'User' && position !== undefined) groups.push(position);
    else if (userIds.has(value)) users.push(value);
  }
  return { users, groups };
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

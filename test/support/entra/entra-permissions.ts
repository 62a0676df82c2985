import type { GraphPermission } from './entra-apps.js';
import type { ObjectKind } from './entra-objects.js';

/**
 * The application permissions each read needs, least privileged first (includes/permissions/
 * user-list, user-delta, group-list, group-delta, group-list-members,
 * serviceprincipal-list-approleassignedto): a token whose roles hold none of them gets 403
 * Authorization_RequestDenied.
 */
export type Operation = 'users' | 'groups' | 'members' | 'servicePrincipals';

const REQUIRED: Record<Operation, GraphPermission[]> = {
  users: ['User.Read.All', 'User.ReadWrite.All', 'Directory.Read.All', 'Directory.ReadWrite.All'],
  groups: [
    'GroupMember.Read.All',
    'Group.Read.All',
    'Directory.Read.All',
    'Group.ReadWrite.All',
    'GroupMember.ReadWrite.All',
    'Directory.ReadWrite.All',
  ],
  members: [
    'GroupMember.Read.All',
    'Group.Read.All',
    'Directory.Read.All',
    'Group.ReadWrite.All',
    'GroupMember.ReadWrite.All',
    'Directory.ReadWrite.All',
  ],
  servicePrincipals: [
    'Application.Read.All',
    'Application.ReadWrite.All',
    'Directory.Read.All',
    'Directory.ReadWrite.All',
  ],
};

/**
 * What lets an app see a member object in full in a directoryObject collection; without it the
 * member shows only its type and id (group-list-memberof.md, "limited information").
 */
const READS: Record<ObjectKind, GraphPermission[]> = {
  user: ['User.Read.All', 'User.ReadWrite.All', 'Directory.Read.All', 'Directory.ReadWrite.All'],
  group: REQUIRED.groups,
  device: ['Device.Read.All', 'Directory.Read.All', 'Directory.ReadWrite.All'],
  orgContact: ['OrgContact.Read.All', 'Directory.Read.All', 'Directory.ReadWrite.All'],
  servicePrincipal: REQUIRED.servicePrincipals,
};

export function allows(roles: ReadonlySet<GraphPermission>, operation: Operation): boolean {
  return REQUIRED[operation].some((permission) => roles.has(permission));
}

export function reads(roles: ReadonlySet<GraphPermission>, kind: ObjectKind): boolean {
  return READS[kind].some((permission) => roles.has(permission));
}

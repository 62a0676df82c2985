import type { EntraTenantControl, ObjectView } from './entra-control.js';
import { newGuid } from './entra-ids.js';
import type { DirectoryObject, ObjectKind, Props } from './entra-objects.js';
import { seedScaleDirectory } from './entra-scale.js';
import type { EntraTenant } from './entra-tenant.js';

type DirectoryControl = Omit<
  EntraTenantControl,
  | 'tenantId'
  | 'domain'
  | 'tokenUrl'
  | 'createApp'
  | 'addSecret'
  | 'expireSecret'
  | 'addCertificate'
  | 'expireCertificate'
  | 'grant'
  | 'revoke'
>;

/**
 * Users, groups, other member objects, memberships and assignments. Each change goes through the
 * tenant (the replication lag) and feeds the delta log; reads settle the lag first.
 */
export function directoryControl(tenant: EntraTenant): DirectoryControl {
  const { directory, assignments } = tenant;
  const now = () => new Date(directory.clock.now()).toISOString();
  const change = (what: string, apply: () => void) => tenant.change(what, apply);
  const read = <T>(f: () => T): T => {
    tenant.settle();
    tenant.checkFailures();
    return f();
  };
  const create = (kind: ObjectKind, props: Props, id = newGuid()): ObjectView => {
    change(`create ${kind} ${id}`, () => directory.create(kind, props, id));
    return { ...props, id, deleted: false };
  };
  return {
    ...userControl(tenant, create, now),
    ...groupControl(tenant, create, now),
    createObject: (kind, props = {}, options = {}) => create(kind, props, options.id),
    purgeObject: (id) => change(`purge ${id}`, () => directory.purge(id)),
    addMember: (groupId, memberId) =>
      change(`add ${memberId} to ${groupId}`, () => directory.addMember(groupId, memberId)),
    removeMember: (groupId, memberId) =>
      change(`remove ${memberId} from ${groupId}`, () => directory.removeMember(groupId, memberId)),
    assign: (servicePrincipalId, principalId, appRoleId) =>
      read(() => assignments.assign(servicePrincipalId, principalId, appRoleId).id),
    unassign: (assignmentId) => assignments.unassign(assignmentId),
    object: (idOrUpn) => read(() => view(directory.objects.get(idOrUpn) ?? directory.find(idOrUpn))),
    members: (groupId) => read(() => directory.members.get(directory.held(groupId, 'group').id)?.ids() ?? []),
    setReplicationLag: (ms) => {
      if (!(ms >= 0)) throw new Error(`a replication lag is 0 ms or more, not ${ms}`);
      tenant.replicationLagMs = ms;
    },
    pendingChanges: () => read(() => tenant.pendingChanges()),
    seedScale: (options) => seedScaleDirectory(tenant, options),
  };
}

type Create = (kind: ObjectKind, props: Props, id?: string) => ObjectView;

function userControl(tenant: EntraTenant, create: Create, now: () => string) {
  const { directory } = tenant;
  const change = (what: string, apply: () => void) => tenant.change(what, apply);
  return {
    createUser: (props: Props, options: { id?: string } = {}) =>
      create(
        'user',
        { accountEnabled: true, userType: 'Member', createdDateTime: now(), ...props },
        options.id,
      ),
    updateUser: (id: string, changes: Props) =>
      change(`update user ${id}`, () => void directory.update(directory.live(id, 'user').id, changes)),
    deleteUser: (id: string) =>
      change(`delete user ${id}`, () => directory.softDelete(directory.live(id, 'user').id)),
    restoreUser: (id: string) =>
      change(`restore user ${id}`, () => directory.restore(directory.held(id, 'user').id)),
    purgeUser: (id: string) =>
      change(`purge user ${id}`, () => {
        if (directory.held(id, 'user').deletedAt === undefined) directory.softDelete(id);
        directory.purge(id);
      }),
  };
}

/** Microsoft 365 groups are soft-deleted; security groups are deleted for good at once. */
function groupControl(tenant: EntraTenant, create: Create, now: () => string) {
  const { directory } = tenant;
  const change = (what: string, apply: () => void) => tenant.change(what, apply);
  const deleteGroup = (id: string) => {
    const group = directory.live(id, 'group');
    const types = group.props.groupTypes;
    if (Array.isArray(types) && types.includes('Unified')) directory.softDelete(id);
    else directory.purge(id);
  };
  return {
    createGroup: (props: Props, options: { id?: string } = {}) =>
      create(
        'group',
        { securityEnabled: true, mailEnabled: false, groupTypes: [], createdDateTime: now(), ...props },
        options.id,
      ),
    updateGroup: (id: string, changes: Props) =>
      change(`update group ${id}`, () => void directory.update(directory.live(id, 'group').id, changes)),
    deleteGroup: (id: string) => change(`delete group ${id}`, () => deleteGroup(id)),
    restoreGroup: (id: string) =>
      change(`restore group ${id}`, () => directory.restore(directory.held(id, 'group').id)),
    purgeGroup: (id: string) =>
      change(`purge group ${id}`, () => directory.purge(directory.held(id, 'group').id)),
  };
}

function view(object: DirectoryObject | undefined): ObjectView | undefined {
  if (!object) return undefined;
  return { ...structuredClone(object.props), id: object.id, deleted: object.deletedAt !== undefined };
}

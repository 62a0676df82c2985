import type { GraphPermission } from './entra-apps.js';
import { generateCertificate } from './entra-certificate.js';
import { newGuid } from './entra-ids.js';
import type { DirectoryObject, ObjectKind, Props } from './entra-objects.js';
import { seedScaleDirectory, type ScaleFixture, type ScaleOptions } from './entra-scale.js';
import type { EntraTenant } from './entra-tenant.js';

/**
 * The control API of one tenant: what an admin does in the Entra admin center, done in-process.
 * Every change feeds the delta log (and waits out the replication lag when one is set); reads
 * return copies for assertions. Errors are thrown as plain Errors naming what was wrong.
 */
export interface EntraApp {
  clientId: string;
  /** The app's enterprise application (its service principal) in the tenant. */
  servicePrincipalId: string;
  displayName: string;
}

export interface EntraCertificate {
  certificateId: string;
  certificatePem: string;
  /** Empty when the test registered a certificate of its own (`certificatePem` given). */
  privateKeyPem: string;
  /** SHA-1, hex upper case, as the portal shows it. */
  thumbprint: string;
  x5t: string;
  x5tS256: string;
}

export type ObjectView = { id: string; deleted: boolean } & Props;

export interface EntraTenantControl {
  readonly tenantId: string;
  readonly domain: string;
  readonly tokenUrl: string;
  createApp(options?: { displayName?: string; permissions?: GraphPermission[] }): EntraApp;
  addSecret(clientId: string, options?: { lifetimeSeconds?: number }): { secretId: string; secret: string };
  expireSecret(clientId: string, secretId?: string): void;
  addCertificate(clientId: string, options?: { certificatePem?: string; lifetimeSeconds?: number }): Promise<EntraCertificate>;
  expireCertificate(clientId: string, certificateId?: string): void;
  grant(clientId: string, ...permissions: GraphPermission[]): void;
  revoke(clientId: string, ...permissions: GraphPermission[]): void;
  createUser(props: Props, options?: { id?: string }): ObjectView;
  updateUser(id: string, changes: Props): void;
  deleteUser(id: string): void;
  restoreUser(id: string): void;
  purgeUser(id: string): void;
  createGroup(props: Props, options?: { id?: string }): ObjectView;
  updateGroup(id: string, changes: Props): void;
  deleteGroup(id: string): void;
  restoreGroup(id: string): void;
  purgeGroup(id: string): void;
  createObject(kind: 'device' | 'orgContact' | 'servicePrincipal', props?: Props, options?: { id?: string }): ObjectView;
  purgeObject(id: string): void;
  addMember(groupId: string, memberId: string): void;
  removeMember(groupId: string, memberId: string): void;
  assign(servicePrincipalId: string, principalId: string, appRoleId?: string): string;
  unassign(assignmentId: string): void;
  object(idOrUpn: string): ObjectView | undefined;
  members(groupId: string): string[];
  setReplicationLag(ms: number): void;
  pendingChanges(): number;
  seedScale(options?: ScaleOptions): ScaleFixture;
}

export function tenantControl(tenant: EntraTenant, loginUrl: string): EntraTenantControl {
  const { directory, apps, assignments } = tenant;
  const now = () => new Date(directory.clock.now()).toISOString();
  const change = (what: string, apply: () => void) => tenant.change(what, apply);
  const read = <T>(f: () => T): T => {
    tenant.checkFailures();
    tenant.settle();
    return f();
  };
  const create = (kind: ObjectKind, props: Props, id = newGuid()): ObjectView => {
    change(`create ${kind} ${id}`, () => directory.create(kind, props, id));
    return { ...props, id, deleted: false };
  };
  const softOrHard = (id: string) => {
    const group = directory.held(id, 'group');
    const unified = Array.isArray(group.props.groupTypes) && group.props.groupTypes.includes('Unified');
    if (unified) directory.softDelete(id);
    else directory.purge(id);
  };
  return {
    tenantId: tenant.id,
    domain: tenant.domain,
    tokenUrl: `${loginUrl}/${tenant.id}/oauth2/v2.0/token`,
    createApp: (options = {}) => {
      const app = apps.create(options);
      const sp = directory.create('servicePrincipal', {
        appId: app.clientId,
        displayName: app.displayName,
        appDisplayName: app.displayName,
        accountEnabled: true,
        servicePrincipalType: 'Application',
        appRoleAssignmentRequired: true,
      });
      return { clientId: app.clientId, servicePrincipalId: sp.id, displayName: app.displayName };
    },
    addSecret: (clientId, options = {}) => {
      const secret = apps.addSecret(clientId, (options.lifetimeSeconds ?? 180 * 86_400) * 1000);
      return { secretId: secret.keyId, secret: secret.value };
    },
    expireSecret: (clientId, secretId) => apps.expireSecret(clientId, secretId),
    addCertificate: async (clientId, options = {}) => {
      apps.get(clientId);
      const pair = options.certificatePem
        ? { certificatePem: options.certificatePem, privateKeyPem: '' }
        : await generateCertificate();
      const lifetime = options.lifetimeSeconds;
      const expiresAt = lifetime === undefined ? undefined : directory.clock.now() + lifetime * 1000;
      const record = apps.addCertificate(clientId, pair.certificatePem, expiresAt);
      const { keyId: certificateId, thumbprint, x5t, x5tS256 } = record;
      return { ...pair, certificateId, thumbprint, x5t, x5tS256 };
    },
    expireCertificate: (clientId, certificateId) => apps.expireCertificate(clientId, certificateId),
    grant: (clientId, ...permissions) => apps.grant(clientId, permissions),
    revoke: (clientId, ...permissions) => apps.revoke(clientId, permissions),
    createUser: (props, options = {}) =>
      create('user', { accountEnabled: true, userType: 'Member', createdDateTime: now(), ...props }, options.id),
    updateUser: (id, changes) => change(`update user ${id}`, () => void directory.update(directory.live(id, 'user').id, changes)),
    deleteUser: (id) => change(`delete user ${id}`, () => directory.softDelete(directory.live(id, 'user').id)),
    restoreUser: (id) => change(`restore user ${id}`, () => directory.restore(directory.held(id, 'user').id)),
    purgeUser: (id) =>
      change(`purge user ${id}`, () => {
        if (directory.held(id, 'user').deletedAt === undefined) directory.softDelete(id);
        directory.purge(id);
      }),
    createGroup: (props, options = {}) =>
      create('group', { securityEnabled: true, mailEnabled: false, groupTypes: [], createdDateTime: now(), ...props }, options.id),
    updateGroup: (id, changes) => change(`update group ${id}`, () => void directory.update(directory.live(id, 'group').id, changes)),
    deleteGroup: (id) => change(`delete group ${id}`, () => softOrHard(directory.live(id, 'group').id)),
    restoreGroup: (id) => change(`restore group ${id}`, () => directory.restore(directory.held(id, 'group').id)),
    purgeGroup: (id) => change(`purge group ${id}`, () => directory.purge(directory.held(id, 'group').id)),
    createObject: (kind, props = {}, options = {}) => create(kind, props, options.id),
    purgeObject: (id) => change(`purge ${id}`, () => directory.purge(id)),
    addMember: (groupId, memberId) => change(`add ${memberId} to ${groupId}`, () => directory.addMember(groupId, memberId)),
    removeMember: (groupId, memberId) =>
      change(`remove ${memberId} from ${groupId}`, () => directory.removeMember(groupId, memberId)),
    assign: (servicePrincipalId, principalId, appRoleId) => {
      tenant.checkFailures();
      tenant.settle();
      return assignments.assign(servicePrincipalId, principalId, appRoleId).id;
    },
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

function view(object: DirectoryObject | undefined): ObjectView | undefined {
  if (!object) return undefined;
  return { ...structuredClone(object.props), id: object.id, deleted: object.deletedAt !== undefined };
}

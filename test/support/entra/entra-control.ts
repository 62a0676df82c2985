import { appControl } from './entra-app-control.js';
import type { GraphPermission } from './entra-apps.js';
import { directoryControl } from './entra-directory-control.js';
import type { Props } from './entra-objects.js';
import type { ScaleFixture, ScaleOptions } from './entra-scale.js';
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
  addCertificate(
    clientId: string,
    options?: { certificatePem?: string; lifetimeSeconds?: number },
  ): Promise<EntraCertificate>;
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
  createObject(
    kind: 'device' | 'orgContact' | 'servicePrincipal',
    props?: Props,
    options?: { id?: string },
  ): ObjectView;
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
  return {
    tenantId: tenant.id,
    domain: tenant.domain,
    tokenUrl: `${loginUrl}/${tenant.id}/oauth2/v2.0/token`,
    ...appControl(tenant),
    ...directoryControl(tenant),
  };
}

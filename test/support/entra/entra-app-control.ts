import { generateCertificate } from './entra-certificate.js';
import type { EntraTenantControl } from './entra-control.js';
import type { EntraTenant } from './entra-tenant.js';

type AppControl = Pick<
  EntraTenantControl,
  'createApp' | 'addSecret' | 'expireSecret' | 'addCertificate' | 'expireCertificate' | 'grant' | 'revoke'
>;

const DAY_SECONDS = 86_400;

/** App registrations and their credentials; an app's enterprise app is a service principal. */
export function appControl(tenant: EntraTenant): AppControl {
  const { apps, directory } = tenant;
  return {
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
      const secret = apps.addSecret(clientId, (options.lifetimeSeconds ?? 180 * DAY_SECONDS) * 1000);
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
  };
}

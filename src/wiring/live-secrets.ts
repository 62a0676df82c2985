import type { Config } from '../config/schema.js';
import { fileSecret } from '../ops/secret-file.js';

/** The secrets a running bridge reads at each use. */
export interface LiveSecrets {
  targetToken(): string;
  scimToken(): string;
  adminToken(): string;
  webhookSecret(): string;
  oktaHookSecret(): string;
}

/** The `*_FILE` variable of each live secret. */
export const SECRET_FILE_VARIABLES: Record<keyof LiveSecrets, string> = {
  targetToken: 'TARGET_TOKEN_FILE',
  scimToken: 'INBOUND_SCIM_TOKEN_FILE',
  adminToken: 'ADMIN_TOKEN_FILE',
  webhookSecret: 'WEBHOOK_SECRET_FILE',
  oktaHookSecret: 'OKTA_HOOK_SECRET_FILE',
};

export type SecretFiles = Partial<Record<keyof LiveSecrets, string>>;

/** The secret files named by the environment. */
export function secretFilesFrom(env: NodeJS.ProcessEnv): SecretFiles {
  const files: SecretFiles = {};
  for (const [name, variable] of Object.entries(SECRET_FILE_VARIABLES) as [keyof LiveSecrets, string][]) {
    const path = env[variable];
    if (path) files[name] = path;
  }
  return files;
}

/**
 * Each secret given as a file (a Kubernetes Secret volume) is re-read when the file changes, so a
 * rotated secret applies without a restart; the others keep their start-up value. Whether a route is
 * served at all (its secret set or empty) is still decided at start-up.
 */
export function liveSecrets(config: Config, files: SecretFiles = {}): LiveSecrets {
  const live = (name: keyof LiveSecrets, initial: string) => {
    const path = files[name];
    return path ? fileSecret(path, initial) : () => initial;
  };
  return {
    targetToken: live('targetToken', config.target.token),
    scimToken: live('scimToken', config.inbound.scimToken),
    adminToken: live('adminToken', config.inbound.adminToken),
    webhookSecret: live('webhookSecret', config.inbound.webhookSecret),
    oktaHookSecret: live('oktaHookSecret', config.inbound.oktaHookSecret),
  };
}

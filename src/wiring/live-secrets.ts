import type { Config } from '../config/schema.js';
import { inboundSecretProblem, targetTokenProblem } from '../config/secret-lines.js';
import type { Logger, SecretRegistry } from '../ops/logger.js';
import { fileSecret } from '../ops/secret-file.js';

/** The secrets a running bridge reads at each use. */
export interface LiveSecrets {
  targetToken(): string;
  scimToken(): string;
  adminToken(): string;
  webhookSecret(): string;
  oktaHookSecret(): string;
  /**
   * A secret of an input's settings section (OKTA_API_TOKEN, LDAP_BIND_PASSWORD, a further
   * directory's `bindPasswordFile`…): re-read from its file when that changes, when it was given as
   * one (the section keeps the path beside it: `<key>File`).
   */
  section(section: object, key: string): () => string;
}

/** The `*_FILE` variable of each live secret of the bridge's own sections. */
export const SECRET_FILE_VARIABLES: Record<Exclude<keyof LiveSecrets, 'section'>, string> = {
  targetToken: 'TARGET_TOKEN_FILE',
  scimToken: 'INBOUND_SCIM_TOKEN_FILE',
  adminToken: 'ADMIN_TOKEN_FILE',
  webhookSecret: 'WEBHOOK_SECRET_FILE',
  oktaHookSecret: 'OKTA_HOOK_SECRET_FILE',
};

export type SecretFiles = Partial<Record<keyof typeof SECRET_FILE_VARIABLES, string>>;

/** The secret files named by the environment. */
export function secretFilesFrom(env: NodeJS.ProcessEnv): SecretFiles {
  const files: SecretFiles = {};
  for (const [name, variable] of Object.entries(SECRET_FILE_VARIABLES) as [keyof SecretFiles, string][]) {
    const path = env[variable];
    if (path) files[name] = path;
  }
  return files;
}

/**
 * Each secret given as a file (a Kubernetes Secret volume) is re-read when the file changes, so a
 * rotated secret applies without a restart; the others keep their start-up value. New contents the
 * start-up checks would refuse (empty, a short line, two target tokens) are not used: the last value
 * stays and a warning says why. So a route enabled at start-up stays enabled, and one disabled (its
 * secret empty) stays disabled.
 */
export function liveSecrets(
  config: Config,
  files: SecretFiles = {},
  logger?: Logger,
  scrubbed?: SecretRegistry,
): LiveSecrets {
  const live = (name: keyof SecretFiles, initial: string, problem: (value: string) => string | undefined) => {
    const path = files[name];
    if (!path || initial === '') return () => initial;
    const onRefused = (reason: string) =>
      logger?.warn(
        { setting: SECRET_FILE_VARIABLES[name] },
        `${SECRET_FILE_VARIABLES[name]}: new contents not used (${reason}); keeping the previous value`,
      );
    const onChanged = (value: string) => scrubbed?.add(value);
    return fileSecret(path, initial, { problem, onRefused, onChanged });
  };
  const sections = new WeakMap<object, Map<string, () => string>>();
  const section = (settings: object, key: string): (() => string) => {
    const known = sections.get(settings) ?? sections.set(settings, new Map()).get(settings)!;
    const cached = known.get(key);
    if (cached) return cached;
    const values = settings as Record<string, unknown>;
    const initial = typeof values[key] === 'string' ? values[key] : '';
    const path = values[`${key}File`];
    const read =
      typeof path === 'string' && path !== '' && initial !== ''
        ? fileSecret(path, initial, {
            problem: (value) => (value === '' ? 'empty' : undefined),
            onRefused: (reason) => logger?.warn({ file: path }, `${path}: new contents not used (${reason})`),
            onChanged: (value) => scrubbed?.add(value),
          })
        : () => initial;
    known.set(key, read);
    return read;
  };
  return {
    section,
    targetToken: live('targetToken', config.target.token, targetTokenProblem),
    scimToken: live('scimToken', config.inbound.scimToken, inboundSecretProblem),
    adminToken: live('adminToken', config.inbound.adminToken, inboundSecretProblem),
    webhookSecret: live('webhookSecret', config.inbound.webhookSecret, inboundSecretProblem),
    oktaHookSecret: live('oktaHookSecret', config.inbound.oktaHookSecret, inboundSecretProblem),
  };
}

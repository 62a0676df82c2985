import type { Config } from '../../config/schema.js';
import { BridgeError } from '../../domain/errors.js';
import type { DirectorySource, DirectorySourceDeps } from './directory-source.js';
import { FileDirectorySource } from './file/file.source.js';
import { LdapDirectorySource } from './ldap/ldap.source.js';
import type { PolicyNeeds } from './ldap/ldap-policy.js';
import { ScimDirectorySource } from './scim/scim.source.js';

export type { DirectorySource, DirectorySourceDeps, ReadOptions } from './directory-source.js';

const DEFAULT_SCIM_TIMEOUT_MS = 30_000;

/**
 * The configured directory source (`directory.source`), or undefined for `none`. Settings that the
 * config schema cannot check (an LDAP attribute mapping naming an unknown SCIM attribute, StartTLS
 * with ldaps://) throw `invalid_input` here, at start-up.
 */
export function createDirectorySource(
  config: Config['directory'],
  deps: DirectorySourceDeps = {},
  needs?: PolicyNeeds,
): DirectorySource | undefined {
  switch (config.source) {
    case 'none':
      return undefined;
    case 'file':
      return new FileDirectorySource(config.file.path);
    case 'scim':
      return new ScimDirectorySource({
        url: config.scim.url,
        token: () => config.scim.token,
        pageSize: config.scim.pageSize,
        timeoutMs: deps.scimTimeoutMs ?? DEFAULT_SCIM_TIMEOUT_MS,
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
      });
    case 'ldap':
      return new LdapDirectorySource(config.ldap, deps.logger, needs);
  }
}

/**
 * The problems of the directory settings that only building the source finds, one line each in the
 * form of the configuration's own (`setting: reason`), for start-up and `check-config`.
 */
export function directorySettingProblems(config: Config['directory']): string[] {
  try {
    createDirectorySource(config);
    return [];
  } catch (error) {
    if (!(error instanceof BridgeError) || error.code !== 'invalid_input') throw error;
    return error.problems.length > 0 ? [...error.problems] : [error.message];
  }
}

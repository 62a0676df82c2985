import type { Config } from '../../config/schema.js';
import { directoryOwner } from '../../domain/desired-change.js';
import type { FullRead, Input } from '../../domain/input.js';
import {
  createDirectorySource,
  type DirectorySource,
  type DirectorySourceDeps,
} from './create-directory-source.js';
import { ldapDelta } from './ldap/ldap-delta.js';

/**
 * The configured directory as an input (SPEC §5.4): owner `directory:<DIRECTORY_NAME>`, read in
 * full by the scheduled and requested full syncs. With DIRECTORY_SOURCE=none it reads nothing, and
 * a full sync reconciles the desired state as it is. An LDAP directory is also read for what
 * changed (DIRECTORY_DELTA_SECONDS, ldap/ldap-delta.ts).
 */
export function directoryInput(config: Config['directory'], deps: DirectorySourceDeps = {}): Input {
  const source = createDirectorySource(config, deps);
  const delta = source?.kind === 'ldap' ? ldapDelta(config.ldap, deps.logger) : undefined;
  return {
    owner: directoryOwner(config.name),
    kind: 'directory',
    ...(source ? { full: fullRead(source) } : {}),
    ...(delta ? { delta } : {}),
    health: () => (source ? { state: 'ok' } : { state: 'disabled', detail: 'DIRECTORY_SOURCE is none' }),
  };
}

function fullRead(source: DirectorySource): FullRead {
  return {
    label: source.label,
    sourceName: source.kind,
    stream: (sink, options) => source.stream(sink, options),
  };
}

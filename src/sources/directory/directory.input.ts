import type { Config } from '../../config/schema.js';
import { directoryOwner } from '../../domain/desired-change.js';
import type { CompiledPolicy } from '../../domain/identity-policy.js';
import type { FullRead, Input } from '../../domain/input.js';
import { activePolicy } from '../input-policies.js';
import { policyRead } from '../policy-read.js';
import type { Comparison } from '../policy-sink.js';
import { streamedReadOne } from '../read-one-streamed.js';
import type { ReadOne } from '../../domain/source-identity.js';
import {
  createDirectorySource,
  type DirectorySource,
  type DirectorySourceDeps,
} from './create-directory-source.js';
import { ldapDelta } from './ldap/ldap-delta.js';
import { policyNeeds } from './ldap/ldap-policy.js';

/**
 * The configured directory as an input (SPEC §5.4): owner `directory:<DIRECTORY_NAME>`, read in
 * full by the scheduled and requested full syncs, under its scope and mapping (`directory.scope`,
 * `directory.mapping`). With DIRECTORY_SOURCE=none it reads nothing, and a full sync reconciles
 * the desired state as it is. An LDAP directory is also read for what changed
 * (DIRECTORY_DELTA_SECONDS, ldap/ldap-delta.ts).
 */
export function directoryInput(config: Config['directory'], deps: DirectorySourceDeps = {}): Input {
  const policy = activePolicy(config, 'directory');
  const source = createDirectorySource(config, deps, policyNeeds([policy]));
  const delta = source?.kind === 'ldap' ? ldapDelta(config.ldap, deps.logger, policy) : undefined;
  const read = (after: CompiledPolicy, comparison?: Comparison): FullRead | undefined => {
    const policies = comparison ? [after, comparison.before] : [after];
    const built =
      comparison || after !== policy ? createDirectorySource(config, deps, policyNeeds(policies)) : source;
    if (!built) return undefined;
    const membershipPass = built.kind !== 'ldap';
    return {
      ...policyRead(rawRead(built), after, { membershipPass, ...(comparison ? { comparison } : {}) }),
      policy: {
        setting: 'directory',
        active: policy,
        compared: (before, next, observer) => read(next, { before, observer }) as FullRead,
      },
      readOne: readOneOf(built),
    };
  };
  const full = read(policy);
  return {
    owner: directoryOwner(config.name),
    kind: 'directory',
    ...(full ? { full } : {}),
    ...(delta ? { delta } : {}),
    health: () => (source ? { state: 'ok' } : { state: 'disabled', detail: 'DIRECTORY_SOURCE is none' }),
  };
}

/** LDAP reads one identity with a few searches; a file or an upstream SCIM server is read in full for it. */
function readOneOf(source: DirectorySource): ReadOne {
  return source.readOne?.bind(source) ?? streamedReadOne(rawRead(source));
}

function rawRead(source: DirectorySource): FullRead {
  return {
    label: source.label,
    sourceName: source.kind,
    stream: (sink, options) => source.stream(sink, options),
  };
}

import type { Config } from '../../config/schema.js';
import { directoryOwner } from '../../domain/desired-change.js';
import type { FullRead, Input } from '../../domain/input.js';
import {
  createDirectorySource,
  type DirectorySource,
  type DirectorySourceDeps,
} from './create-directory-source.js';

/**
 * The configured directory as an input (SPEC §5.4): owner `directory:<DIRECTORY_NAME>`, read in
 * full by the scheduled and requested full syncs. With DIRECTORY_SOURCE=none it reads nothing, and
 * a full sync reconciles the desired state as it is.
 */
export function directoryInput(config: Config['directory'], deps: DirectorySourceDeps = {}): Input {
  const source = createDirectorySource(config, deps);
  return {
    owner: directoryOwner(config.name),
    kind: 'directory',
    ...(source ? { full: fullRead(source) } : {}),
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

import { sectionOf } from '../../config/catalog.js';
import type { DirectorySettings } from '../../config/schema.js';
import { directoryOwner } from '../../domain/desired-change.js';
import type { CompiledPolicy } from '../../domain/identity-policy.js';
import type { DeltaRead, DeltaSource, FullRead, Input } from '../../domain/input.js';
import type { ReadOne } from '../../domain/source-identity.js';
import { activePolicy } from '../input-policies.js';
import { policyRead } from '../policy-read.js';
import type { Comparison } from '../policy-sink.js';
import { streamedReadOne } from '../read-one-streamed.js';
import type { DirectorySourceKind, SourceContext } from '../source-kind.js';
import type { DirectorySource } from './directory-source.js';

/** What building a directory's source needs besides its settings. */
export interface DirectoryDeps extends Pick<SourceContext, 'logger' | 'timeoutMs' | 'metrics'> {
  /** A secret of a settings section as it is now (its file re-read when it changes). */
  secret?(section: object, key: string): () => string;
}

/**
 * One configured directory as an input (SPEC §5.4, §3 Several directories): owner
 * `directory:<name>`, read in full by the scheduled and requested full syncs of it under its own
 * scope and mapping, and read for its changes every `deltaSeconds` when its source kind can say
 * what changed. With source `none` it reads nothing, and a full sync reconciles the desired state
 * as it is.
 */
export function directoryInput(
  settings: DirectorySettings,
  kinds: readonly DirectorySourceKind[],
  deps: DirectoryDeps = {},
  /** The settings prefix that names its expressions in problems (`directory`, `directories.0`). */
  prefix = 'directory',
): Input {
  const owner = directoryOwner(settings.name);
  const kind = kinds.find((k) => k.settings.key === settings.source);
  if (!kind) {
    return { owner, kind: 'directory', health: () => ({ state: 'disabled', detail: 'its source is none' }) };
  }
  const section = sectionOf(kind.settings, settings);
  const policy = activePolicy(settings, prefix);
  const context = (policies: readonly CompiledPolicy[]) => sourceContext(settings, section, policies, deps);
  const source = kind.build(section, context([policy]));
  const read0 = settings.deltaSeconds > 0 ? kind.changes?.(section, context([policy])) : undefined;
  const delta = read0 && withCadence(read0, settings.deltaSeconds);
  const read = (after: CompiledPolicy, comparison?: Comparison): FullRead => {
    const policies = comparison ? [after, comparison.before] : [after];
    const built = comparison || after !== policy ? kind.build(section, context(policies)) : source;
    return {
      ...policyRead(rawRead(built, kind), after, {
        membershipPass: !built.attachesMembership,
        ...(comparison ? { comparison } : {}),
      }),
      policy: {
        setting: prefix,
        active: policy,
        compared: (before, next, observer) => read(next, { before, observer }),
      },
      readOne: readOneOf(built, kind),
      ...fingerprintOf(built, after),
    };
  };
  return {
    owner,
    kind: 'directory',
    full: read(policy),
    ...(delta ? { delta } : {}),
    health: () => ({ state: 'ok' }),
  };
}

/** What a directory's source is built with: its name, the policies it serves, its live secrets. */
export function sourceContext(
  settings: DirectorySettings,
  section: object,
  policies: readonly CompiledPolicy[],
  deps: DirectoryDeps,
): SourceContext {
  const fixed = (key: string) => () => String((section as Record<string, unknown>)[key] ?? '');
  return {
    name: settings.name,
    owner: directoryOwner(settings.name),
    policies,
    secret: (key) => deps.secret?.(section, key) ?? fixed(key),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  };
}

/** The read's digest: the source's, under the scope and mapping it reads with. */
function fingerprintOf(source: DirectorySource, policy: CompiledPolicy): Pick<FullRead, 'fingerprint'> {
  const digest = source.fingerprint?.bind(source);
  if (!digest) return {};
  return {
    fingerprint: async (options) => {
      const own = await digest(options);
      return own === undefined ? undefined : `${policy.fingerprint}:${own}`;
    },
  };
}

/** A source that can look one identity up does; a file or upstream SCIM server is read in full for it. */
function readOneOf(source: DirectorySource, kind: DirectorySourceKind): ReadOne {
  return source.readOne?.bind(source) ?? streamedReadOne(rawRead(source, kind));
}

function rawRead(source: DirectorySource, kind: DirectorySourceKind): FullRead {
  return {
    label: source.label,
    sourceName: kind.settings.key,
    stream: (sink, options) => source.stream(sink, options),
  };
}

/** A change read at the directory's own cadence (deltaSeconds). */
function withCadence(read: DeltaSource, everySeconds: number): DeltaRead {
  return {
    watermarkKind: read.watermarkKind,
    everySeconds,
    position: (options) => read.position(options),
    changesSince: (watermark, options) => read.changesSince(watermark, options),
  };
}

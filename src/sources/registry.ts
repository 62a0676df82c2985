import { sectionOf, type SettingsCatalog } from '../config/catalog.js';
import type { Config, DirectorySettings } from '../config/schema.js';
import { isBridgeError } from '../domain/errors.js';
import { Inputs } from '../domain/input.js';
import { entraSource } from './directory/entra/entra.kind.js';
import { fileSource } from './directory/file/file.kind.js';
import { googleSource } from './directory/google/google.kind.js';
import { ldapSource } from './directory/ldap/ldap.kind.js';
import { scimSource } from './directory/scim/scim.kind.js';
import { directoryInput, sourceContext, type DirectoryDeps } from './directory/directory.input.js';
import type { DirectorySource } from './directory/directory-source.js';
import { eventsInput } from './events/events.input.js';
import { policyProblems } from './input-policies.js';
import { oktaInput } from './okta/okta.input.js';
import { oktaSettings, oktaSettingsOf } from './okta/okta.settings.js';
import { scimInput } from './scim/scim.input.js';
import type { DirectorySourceKind } from './source-kind.js';

/**
 * The input registry: the one place that names the kinds of input (SPEC §5). Pushed: SCIM push
 * (`scim`), signed events (`events`), Okta's Event Hooks (`okta`). Pulled: Okta's API (`okta`), and
 * the directory source kinds — each a folder under sources/directory/ whose `*.kind.ts` brings its
 * settings and how it is built (source-kind.ts). Adding a directory source kind is its folder, one
 * entry below, and its documentation; the configuration, check-config, status and Helm's values
 * schema derive from this list.
 */
export const DIRECTORY_SOURCES: readonly DirectorySourceKind[] = [
  fileSource,
  ldapSource,
  scimSource,
  entraSource,
  googleSource,
];

/** What the configuration knows of the inputs' settings (config/catalog.ts). */
export const CATALOG: SettingsCatalog = {
  inputs: [oktaSettings],
  directorySources: DIRECTORY_SOURCES.map((kind) => kind.settings),
};

/** The secrets that enable the push inputs, and those of the pulled inputs, as they are now. */
export interface InputSecrets {
  scimToken(): string;
  webhookSecret(): string;
  oktaHookSecret(): string;
  /** A secret of an input's settings section (re-read from its file when it changes). */
  section?(section: object, key: string): () => string;
}

export interface InputDeps extends Omit<DirectoryDeps, 'secret'> {
  secrets?: InputSecrets;
}

/** Every directory of a configuration: the first (`directory`), then the further ones (`directories`). */
export function configuredDirectories(config: Config): readonly DirectorySettings[] {
  return [config.directory, ...config.directories];
}

/** Every input of a configuration (SPEC §5): SCIM push, signed events, Okta, each directory. */
export function createInputs(config: Config, deps: InputDeps = {}): Inputs {
  const live = deps.secrets ?? {
    scimToken: () => config.inbound.scimToken,
    webhookSecret: () => config.inbound.webhookSecret,
    oktaHookSecret: () => config.inbound.oktaHookSecret,
  };
  const okta = oktaSettingsOf(config);
  const directoryDeps: DirectoryDeps = {
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
    ...(live.section ? { secret: live.section } : {}),
  };
  return new Inputs([
    scimInput(live.scimToken),
    eventsInput(live.webhookSecret),
    oktaInput(live.oktaHookSecret, okta, {
      ...(live.section ? { apiToken: live.section(okta, 'apiToken') } : {}),
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(deps.logger ? { logger: deps.logger } : {}),
    }),
    ...configuredDirectories(config).map((d, i) =>
      directoryInput(d, DIRECTORY_SOURCES, directoryDeps, prefixOf(i)),
    ),
  ]);
}

/** The kind of a directory's source; undefined for `none`. */
export function directoryKindOf(settings: DirectorySettings): DirectorySourceKind | undefined {
  return DIRECTORY_SOURCES.find((k) => k.settings.key === settings.source);
}

/** A directory's source as its kind builds it, under the default scope and mapping; undefined for `none`. */
export function buildDirectorySource(
  settings: DirectorySettings,
  deps: DirectoryDeps = {},
): DirectorySource | undefined {
  const kind = directoryKindOf(settings);
  if (!kind) return undefined;
  const section = sectionOf(kind.settings, settings);
  return kind.build(section, sourceContext(settings, section, [], deps));
}

/** The settings prefix of the i-th configured directory. */
function prefixOf(i: number): string {
  return i === 0 ? 'directory' : `directories.${i - 1}`;
}

/**
 * The problems of the inputs' settings that only compiling or building them finds — scopes and
 * mappings that do not compile, source settings a source refuses — one line each, for start-up and
 * `check-config`.
 */
export function inputSettingProblems(config: Config): string[] {
  const directories = configuredDirectories(config);
  const sections = [
    ...directories.map((d, i) => ({ prefix: prefixOf(i), section: d })),
    { prefix: 'okta', section: oktaSettingsOf(config) },
  ];
  const problems = policyProblems(sections);
  if (problems.length > 0) return problems;
  try {
    createInputs(config);
    return [];
  } catch (error) {
    if (!isBridgeError(error, 'invalid_input')) throw error;
    return error.problems.length > 0 ? [...error.problems] : [error.message];
  }
}

import { z } from 'zod';

/**
 * What the configuration needs to know of the inputs' own settings, handed to loadConfig by the
 * input registry (src/sources/registry.ts): config/ knows no input by name. Each input kind brings
 * its section — its zod shape with the defaults of config/default.yaml, the environment variables
 * that set it, which of its settings are secrets, and the rules across them — so that the schema,
 * the settings table, the secret list and the documentation derive from one declaration.
 */

/** How an environment variable's text is read. */
export type SettingKind = 'string' | 'integer' | 'boolean' | 'list';

/** An environment variable that sets one setting of a section (`key` is its path in the section). */
export interface EnvSetting {
  readonly env: string;
  readonly key: string;
  readonly kind: SettingKind;
  /** The expected form, shown after a problem: "expected …". */
  readonly expected: string;
  readonly secret?: boolean;
}

/** A problem of a section's settings once its input is chosen: the setting's path in it and why. */
export interface SectionProblem {
  readonly key: string;
  readonly message: string;
}

/** The settings of one input kind: a top-level section (`okta`) or a directory source's (`ldap`). */
export interface SectionSettings<S extends z.ZodObject = z.ZodObject> {
  /** The section's key: `okta` at the top level, `ldap` under `directory` and each of `directories`. */
  readonly key: string;
  readonly shape: S;
  /** The variables of the first directory's (or the top-level section's) settings. */
  readonly env: readonly EnvSetting[];
  /** Keys of secrets only the config file can set (the variables' secrets are marked there). */
  readonly secrets?: readonly string[];
  /** Rules across the section's settings, checked when the section is in use. */
  problems?(settings: z.output<S>): readonly SectionProblem[];
}

/** Every input section the configuration holds. */
export interface SettingsCatalog {
  /** Top-level sections of inputs that are not directories (`okta`). */
  readonly inputs: readonly SectionSettings[];
  /** The directory source kinds, by `key` (`file`, `ldap`, `scim`…), a sub-section of each directory. */
  readonly directorySources: readonly SectionSettings[];
}

/** A section's settings, typed by its declaration (the configuration holds them validated). */
export function sectionOf<S extends z.ZodObject>(
  declaration: SectionSettings<S>,
  parent: object,
): Readonly<z.output<S>> {
  return (parent as Record<string, z.output<S>>)[declaration.key] as z.output<S>;
}

/** The secret keys of a section (`bindPassword`), from its variables and its file-only secrets. */
export function secretKeys(section: SectionSettings): string[] {
  return [...section.env.filter((e) => e.secret).map((e) => e.key), ...(section.secrets ?? [])];
}

/**
 * A section's schema as the configuration parses it: its shape, and beside each secret the path of
 * the file it was read from (`bindPasswordFile`), kept so that the input re-reads it when it changes.
 */
export function sectionSchema(section: SectionSettings): z.ZodObject {
  const files = Object.fromEntries(secretKeys(section).map((key) => [`${key}File`, z.string().optional()]));
  return section.shape.extend(files);
}

/** Marks a schema issue raised by a section's rule: its problem reads without the value. */
export const RULE = { rule: true } as const;

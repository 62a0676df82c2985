import { z } from 'zod';
import {
  secretKeys,
  sectionSchema,
  type SectionSettings,
  type SettingsCatalog,
} from '../../src/config/catalog.js';
import { directoriesSchema, directoryCommonSchema } from '../../src/config/directory-schema.js';
import { configSchemaFor, policyShape } from '../../src/config/schema.js';
import { settingsFor } from '../../src/config/settings.js';
import { eachSchema, toDraft7, type JsonSchema } from './json-schema.js';

/**
 * The `config` value of Helm's values.schema.json, from the input registry's catalog: the bridge's
 * non-secret settings, shaped like config/default.yaml, which the chart renders into the file named
 * by CONFIG_FILE. A secret that has a variable comes from the chart's Secret instead (the pods get
 * its `*_FILE`), so it is refused here; one that only a file can set stays as `<key>File`, a path.
 */

type Shape = Record<string, z.ZodType>;

/** Where the chart takes a secret variable from, when not from `secrets` (the Redis URL). */
export const CHART_SECRET_PLACES: Readonly<Record<string, string>> = { REDIS_URL: 'redis.url' };

const chartPlace = (env: string) => CHART_SECRET_PLACES[env] ?? `secrets.values.${env}`;

/** Names given to shapes that recur, defined once in the chart's `definitions`. */
const DEFINITIONS = new Map<z.ZodType, string>([
  [policyShape.scope, 'inputScope'],
  [policyShape.mapping, 'inputMapping'],
]);

/**
 * A section as the chart holds it: without its secrets — nor the `<key>File` of those a variable
 * sets — and with a description saying where the secrets go.
 */
function chartSection(
  schema: z.ZodObject,
  secrets: readonly { key: string; env?: string }[],
  notes: z.core.$ZodRegistry<JsonSchema>,
): z.ZodObject {
  const left = new Set(secrets.flatMap((s) => (s.env ? [s.key, `${s.key}File`] : [s.key])));
  const shape = Object.fromEntries(Object.entries(schema.shape as Shape).filter(([key]) => !left.has(key)));
  const object = z.object(shape);
  const given = secrets.flatMap((s) => (s.env ? [`${s.key}: a secret, given as ${chartPlace(s.env)}`] : []));
  if (given.length > 0) notes.add(object, { description: `${given.join('; ')}.` });
  return object;
}

/** The secrets of a section declaration, with the variable of each that has one. */
function secretsOf(section: SectionSettings): { key: string; env?: string }[] {
  const envs = new Map(section.env.filter((e) => e.secret).map((e) => [e.key, e.env]));
  return secretKeys(section).map((key) => ({ key, ...(envs.has(key) ? { env: envs.get(key) } : {}) }));
}

/** The bridge's own sections and each input's top-level one (`okta`), in the schema's order. */
function topSections(catalog: SettingsCatalog, notes: z.core.$ZodRegistry<JsonSchema>): Shape {
  const settings = settingsFor(catalog).filter((s) => s.secret && s.path.length === 2);
  const shape = configSchemaFor(catalog).shape as Shape;
  const sections = Object.entries(shape).flatMap(([key, schema]) => {
    if (key === 'directory' || key === 'directories' || !(schema instanceof z.ZodObject)) return [];
    const input = catalog.inputs.find((section) => section.key === key);
    const secrets = input
      ? secretsOf(input)
      : settings.filter((s) => s.path[0] === key).map((s) => ({ key: s.path[1] ?? '', env: s.env }));
    const section = chartSection(schema, secrets, notes);
    return Object.keys(section.shape).length > 0 ? [[key, section] as const] : [];
  });
  return Object.fromEntries(sections);
}

/** The first directory: its common settings, the source kind's name, and every kind's section. */
function firstDirectory(catalog: SettingsCatalog, notes: z.core.$ZodRegistry<JsonSchema>): z.ZodObject {
  const kinds = catalog.directorySources;
  const { source: _source, ...common } = directoryCommonSchema.shape;
  const sections = kinds.map((kind) => [kind.key, chartSection(sectionSchema(kind), secretsOf(kind), notes)]);
  return z.object({
    source: z.enum(['none', ...kinds.map((kind) => kind.key)]),
    ...common,
    ...Object.fromEntries(sections),
  });
}

/**
 * A further directory: its common settings (with their defaults for a further one), the name of
 * its source kind, and that kind's section alone; its secrets only as files (it has no variables).
 */
function furtherDirectory(catalog: SettingsCatalog, notes: z.core.$ZodRegistry<JsonSchema>) {
  const kinds = catalog.directorySources;
  const { source: _source, ...common } = directoriesSchema(kinds).element.in.shape;
  const items = kinds.map((kind) => {
    const secrets = secretKeys(kind).map((key) => ({ key }));
    // sectionSchema has the `<key>File` of every secret: described here for the chart's readers.
    const files = secrets.map(({ key }) => {
      const path = z.string();
      notes.add(path, { description: `The path of a file holding ${key}, re-read when it changes.` });
      return [`${key}File`, path.optional()];
    });
    const section = chartSection(sectionSchema(kind), secrets, notes).extend(Object.fromEntries(files));
    return z.object({ source: z.literal(kind.key), ...common, [kind.key]: section.optional() });
  });
  const [first, ...others] = items;
  if (!first) throw new Error('The catalog has no directory source kind');
  const directories = z.array(z.discriminatedUnion('source', [first, ...others]));
  notes.add(directories, {
    description:
      "Further directories, each shaped like `directory` with only its own source's section; their secrets only as files (<secret>File).",
  });
  return directories;
}

/**
 * The `config` property's schema and the definitions it refers to (`#/definitions/…`), in draft-07
 * as the rest of the chart's schema. Nothing is required but a further directory's name and source:
 * the rendered file is laid over config/default.yaml, which has every setting.
 */
export function configValuesSchema(catalog: SettingsCatalog): {
  config: JsonSchema;
  definitions: Record<string, JsonSchema>;
} {
  const notes = z.registry<JsonSchema>();
  for (const [schema, id] of DEFINITIONS) notes.add(schema, { id });
  const config = z.object({
    ...topSections(catalog, notes),
    directory: firstDirectory(catalog, notes),
    directories: furtherDirectory(catalog, notes),
  });
  notes.add(config, {
    description: 'Non-secret settings shaped like config/default.yaml; secrets are refused here.',
  });
  const { definitions = {}, required: _all, ...schema } = toDraft7(config, notes);
  const properties = schema.properties as Record<string, JsonSchema>;
  for (const [key, property] of Object.entries(properties))
    if (key !== 'directories') eachSchema(property, (node) => delete node.required);
  // The port is also the container's `http` port, which Kubernetes takes from 1 (0 picks a free one).
  const http = properties.http?.properties as Record<string, JsonSchema> | undefined;
  if (http?.port) http.port.minimum = 1;
  return { config: schema, definitions: definitions as Record<string, JsonSchema> };
}

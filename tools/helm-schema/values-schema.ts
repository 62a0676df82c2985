import type { SettingsCatalog } from '../../src/config/catalog.js';
import { configValuesSchema } from './config-values.js';
import { isSchema, type JsonSchema } from './json-schema.js';
import { secretNameSchema, secretValueProperties } from './secret-values.js';

/**
 * Helm's values.schema.json with its parts that derive from the input registry generated: the
 * `config` value (config-values.ts), the secret names (`definitions.secretName`) and the checks on
 * `secrets.values` (secret-values.ts), and the definitions they refer to. The rest — the chart's
 * own values: roles, image, Service, Ingress… — is kept as written.
 */
export function valuesSchemaFor(chart: JsonSchema, catalog: SettingsCatalog): JsonSchema {
  const schema = structuredClone(chart);
  const { config, definitions } = configValuesSchema(catalog);
  const properties = part(schema, 'properties');
  properties.config = {
    $comment: 'Generated from the input registry by tools/generate-helm-schema.ts (npm run generate).',
    ...config,
  };
  schema.definitions = {
    ...part(schema, 'definitions'),
    ...definitions,
    secretName: {
      $comment: 'Generated from the settings table by tools/generate-helm-schema.ts (npm run generate).',
      ...secretNameSchema(catalog),
    },
  };
  const values = part(part(part(part(properties, 'secrets'), 'properties'), 'values'), 'properties', true);
  for (const key of Object.keys(values)) delete values[key];
  Object.assign(values, secretValueProperties(catalog));
  return schema;
}

/** A part of the chart's schema the generated ones go into; missing, it is the file that changed. */
function part(schema: JsonSchema, key: string, create = false): JsonSchema {
  const found = schema[key];
  if (isSchema(found)) return found;
  if (!create) throw new Error(`values.schema.json has no "${key}" where the generated parts go`);
  const made: JsonSchema = {};
  schema[key] = made;
  return made;
}

import type { SettingsCatalog } from '../../src/config/catalog.js';
import { settingsFor } from '../../src/config/settings.js';
import { CHART_SECRET_PLACES } from './config-values.js';
import type { JsonSchema } from './json-schema.js';

/**
 * The chart's secrets, from the settings table: every secret variable the chart's Secret (or
 * `existingSecret`) may hold, by name — the keys of `secrets.values` and `secrets.existingSecretKeys`
 * — but those the chart takes elsewhere (the Redis URL, `redis.url`).
 */
export function secretNameSchema(catalog: SettingsCatalog): JsonSchema {
  const names = settingsFor(catalog)
    .filter((s) => s.secret && !(s.env in CHART_SECRET_PLACES))
    .map((s) => s.env);
  return { type: 'string', enum: names };
}

/**
 * The checks on `secrets.values` the bridge makes at start-up that JSON Schema can make too: an
 * inbound secret (`inbound.*`) is empty — its endpoint off — or of 16 characters or more.
 */
export function secretValueProperties(catalog: SettingsCatalog): Record<string, JsonSchema> {
  const inbound = settingsFor(catalog).filter((s) => s.secret && s.path[0] === 'inbound');
  return Object.fromEntries(
    inbound.map((s) => [
      s.env,
      {
        type: 'string',
        anyOf: [{ maxLength: 0 }, { minLength: 16 }],
        description: 'Empty, or at least 16 characters.',
      },
    ]),
  );
}

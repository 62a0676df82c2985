/**
 * Writes the parts of helm/scim-bridge/values.schema.json that derive from the input registry
 * (src/sources/registry.ts): the `config` value, the secret names and the checks on
 * `secrets.values` (tools/helm-schema/). Run it after adding or changing an input kind or a
 * setting; test/helm/values-schema.test.ts fails until it has run. The rest of the file — the
 * chart's own values — is written by hand and kept as it is.
 *
 *   npm run generate            (npx tsx tools/generate-helm-schema.ts [--check])
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { CATALOG } from '../src/sources/registry.js';
import { valuesSchemaFor } from './helm-schema/values-schema.js';

const PATH = fileURLToPath(new URL('../helm/scim-bridge/values.schema.json', import.meta.url));

const { values: options } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const current = readFileSync(PATH, 'utf8');
const generated = valuesSchemaFor(JSON.parse(current) as Record<string, unknown>, CATALOG);
// Written as `prettier --write` would, so that the lint's format check and the diff stay quiet.
const text = await format(JSON.stringify(generated, null, 2), {
  ...(await resolveConfig(PATH)),
  filepath: PATH,
});

if (text === current) {
  console.log(`${PATH}: up to date`);
} else if (options.check) {
  console.error(`${PATH}: stale — run npm run generate`);
  process.exitCode = 1;
} else {
  writeFileSync(PATH, text);
  console.log(`${PATH}: written`);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { secretKeys, type SectionSettings } from '../../src/config/catalog.js';
import { loadConfig } from '../../src/config/load-config.js';
import { optionalUrl } from '../../src/config/schema.js';
import { settingsFor } from '../../src/config/settings.js';
import { isBridgeError } from '../../src/domain/errors.js';
import { CATALOG } from '../../src/sources/registry.js';
import { valuesSchemaFor } from '../../tools/helm-schema/values-schema.js';
import { CHART_DIR, isObject } from './chart-renderer.js';

/**
 * values.schema.json's parts derived from the input registry (tools/generate-helm-schema.ts): the
 * committed file is what the registry generates now, and it refuses and accepts what the bridge
 * does. Real: the committed file, ajv in strict mode (as chart.test.ts), the chart's values.yaml as
 * the values Helm lays the user's over, and the bridge's loadConfig for comparison.
 */

type Tree = Record<string, unknown>;

const committed = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Tree;
const validate = new Ajv({ allErrors: true, strict: true }).compile(committed);
const defaults = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Tree;
const SECRETS = settingsFor(CATALOG).filter((s) => s.secret);

/** values.yaml with the user's values laid over it, as Helm merges them (lists replaced). */
function merged(over: Tree, base: Tree = defaults): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = out[key];
    out[key] = isObject(under) && isObject(value) ? merged(value, under) : value;
  }
  return out;
}

/** A tree holding `value` at a dotted path. */
function at(path: readonly string[], value: unknown): Tree {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Tree;
}

const accepts = (values: Tree) => validate(merged(values));

/** Whether the bridge starts on a config file holding `config` (what the chart renders from it). */
function bridgeAccepts(config: Tree): boolean {
  const env = {
    REDIS_URL: 'redis://redis:6379/0',
    TARGET_TOKEN: 'platform-token-0123456789',
    CONFIG_FILE: '/etc/scim-bridge/config/config.yaml',
  };
  const file = merged(config, { target: { url: 'https://acme.example.com' } });
  const files: Record<string, string> = { [env.CONFIG_FILE]: stringify(file) };
  try {
    loadConfig(env, CATALOG, { readFile: (path) => files[path] ?? readFileSync(path, 'utf8') });
    return true;
  } catch (error) {
    if (isBridgeError(error, 'config_invalid')) return false;
    throw error;
  }
}

/** A further directory of a source kind, its section at the kind's defaults, its secrets as files. */
function furtherDirectory(kind: (typeof CATALOG.directorySources)[number]): Tree {
  const section = { ...(kind.shape.parse({}) as Tree) };
  for (const key of secretKeys(kind)) {
    delete section[key];
    section[`${key}File`] = `/etc/scim-bridge/secrets/second-${key}`;
  }
  return { name: `second-${kind.key}`, source: kind.key, [kind.key]: section };
}

describe('helm values.schema.json', () => {
  it('is what the input registry generates now (when not: run npm run generate)', () => {
    expect(
      valuesSchemaFor(committed, CATALOG),
      'helm/scim-bridge/values.schema.json is stale: run npm run generate',
    ).toEqual(committed);
  });

  it('refuses every secret setting under config', () => {
    for (const setting of SECRETS) {
      expect(accepts({ config: at(setting.path, 'secret-value-0123456789') }), setting.env).toBe(false);
      const refused = validate.errors?.map(
        (e) => (e.params as { additionalProperty?: string }).additionalProperty,
      );
      expect(setting.path).toContain(refused?.find((key) => key !== undefined));
    }
  });

  it('takes each secret variable under secrets, but the Redis URL, which is redis.url', () => {
    for (const setting of SECRETS) {
      const values = { secrets: { values: { [setting.env]: 'secret-value-0123456789' } } };
      expect(accepts(values), setting.env).toBe(setting.env !== 'REDIS_URL');
      const keys = { secrets: { existingSecret: 'tokens', existingSecretKeys: { [setting.env]: 'key' } } };
      expect(accepts(keys), setting.env).toBe(setting.env !== 'REDIS_URL');
    }
  });

  it.each(CATALOG.directorySources.map((kind) => [kind.key, kind] as const))(
    'takes a further %s directory, its secrets only as files',
    (_key, kind) => {
      const item = furtherDirectory(kind);
      expect(accepts({ config: { directories: [item] } }), JSON.stringify(validate.errors)).toBe(true);
      for (const key of secretKeys(kind)) {
        const withSecret = merged({ [kind.key]: { [key]: 'secret-value-0123456789' } }, item);
        expect(accepts({ config: { directories: [withSecret] } }), key).toBe(false);
      }
    },
  );

  it('refuses a further directory of no known kind, without a name, or with another kind’s section', () => {
    const [kind, other] = CATALOG.directorySources;
    if (!kind) throw new Error('no directory source kind');
    const item = furtherDirectory(kind);
    expect(accepts({ config: { directories: [{ ...item, source: 'nis' }] } })).toBe(false);
    expect(accepts({ config: { directories: [{ ...item, name: undefined }] } })).toBe(false);
    if (other)
      expect(accepts({ config: { directories: [{ ...item, [other.key]: other.shape.parse({}) }] } })).toBe(
        false,
      );
  });

  it.each([
    ['target.url', 'ftp://platform.example.com'],
    ['target.url', 'https://platform.example.com'],
    ['okta.logPollSeconds', -1],
    ['directory.ldap.url', 'https://ldap.example.com'],
    ['directory.ldap.url', 'ldaps://ldap.example.com'],
    ['directory.scim.url', 'ldap://idp.example.com'],
    ['http.publicUrl', 'https://bridge.example.com/scim-bridge'],
    ['http.publicUrl', 'https://bridge.example.com/?q=1'],
    ['http.trustProxy', '10.0.0.0/8,loopback'],
    ['http.trustProxy', 2],
    ['reconcile.deprovisionLimit', '500,20%'],
    ['reconcile.deprovisionLimit', 250],
    ['reconcile.deprovisionLimit', 'most'],
    ['reconcile.sourceShrinkLimit', '30%'],
    ['reconcile.sourceShrinkLimit', 30],
    ['directory.ldap.userFilter', 'objectClass=person'],
    ['directory.source', 'nis'],
  ])('agrees with the bridge on %s: %j', (path, value) => {
    const config = at(path.split('.'), value);
    expect(accepts({ config }), JSON.stringify(validate.errors)).toBe(bridgeAccepts(config));
  });

  it('takes a new directory source kind in with no change but its registry entry', () => {
    const example: SectionSettings = {
      key: 'example',
      shape: z.object({
        url: optionalUrl(['https']).default(''),
        clientSecret: z.string().default(''),
        signingKey: z.string().default(''),
      }),
      env: [
        { env: 'EXAMPLE_URL', key: 'url', kind: 'string', expected: 'an https URL' },
        { env: 'EXAMPLE_SECRET', key: 'clientSecret', kind: 'string', expected: 'a secret', secret: true },
      ],
      secrets: ['signingKey'],
    };
    const catalog = { ...CATALOG, directorySources: [...CATALOG.directorySources, example] };
    const check = new Ajv({ allErrors: true, strict: true }).compile(valuesSchemaFor(committed, catalog));
    const takes = (values: Tree) => check(merged(values));
    const first = (section: Tree) => ({ config: { directory: { source: 'example', example: section } } });
    const further = (section: Tree) => ({
      config: { directories: [{ name: 'x', source: 'example', example: section }] },
    });
    expect(accepts(first({}))).toBe(false);
    expect(takes(first({ url: 'https://example.com', signingKeyFile: '/run/key' }))).toBe(true);
    expect(takes(first({ url: 'http://example.com' }))).toBe(false);
    expect(takes(first({ clientSecret: 'secret-value-0123456789' }))).toBe(false);
    expect(takes(first({ clientSecretFile: '/run/secret' }))).toBe(false);
    expect(takes({ secrets: { values: { EXAMPLE_SECRET: 'secret-value-0123456789' } } })).toBe(true);
    expect(takes(further({ clientSecretFile: '/run/secret', signingKeyFile: '/run/key' }))).toBe(true);
    expect(takes(further({ signingKey: 'secret-value-0123456789' }))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/sources/registry.js';
import { hashTagged, loadConfig } from '../../src/config/load-config.js';
import { isBridgeError } from '../../src/domain/errors.js';
import { maskConfig, secretValues } from '../../src/config/mask-config.js';

const base = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  TARGET_URL: 'https://acme.example.com',
  TARGET_TOKEN: 'target-token-value',
};

function problemsOf(env: Record<string, string>, files: Record<string, string> = {}): readonly string[] {
  try {
    loadConfig(env, CATALOG, { readFile: (path) => filesOrDisk(path, files) });
  } catch (error) {
    if (isBridgeError(error, 'config_invalid')) return error.problems;
    throw error;
  }
  return [];
}

function filesOrDisk(path: string, files: Record<string, string>): string {
  if (path in files) return files[path] as string;
  if (path.endsWith('config/default.yaml')) return requireDefaults();
  throw Object.assign(new Error('missing'), { code: 'ENOENT' });
}

import { readFileSync } from 'node:fs';
function requireDefaults(): string {
  return readFileSync(new URL('../../config/default.yaml', import.meta.url), 'utf8');
}

describe('loadConfig', () => {
  it('names every missing required setting on its own line', () => {
    expect(problemsOf({})).toEqual([
      'REDIS_URL: required — expected a redis:// or rediss:// URL, e.g. redis://redis:6379/0',
      "TARGET_URL: required — expected the platform's tenant base URL, e.g. https://acme.example.com",
      "TARGET_TOKEN: required — expected the platform's SCIM bearer token",
    ]);
  });

  it('names wrong values with the value and the expected form', () => {
    const problems = problemsOf({ ...base, PORT: 'abc', TARGET_URL: 'not-a-url', DEPROVISION: 'wipe' });
    expect(problems).toContain(
      'PORT: "abc" is not a whole number — expected a port number from 1 to 65535 (0 picks a free one)',
    );
    expect(problems).toContain(
      'TARGET_URL: "not-a-url" is not a http or https URL — expected the platform\'s tenant base URL, e.g. https://acme.example.com',
    );
    expect(problems).toContain(
      'DEPROVISION: "wipe" is not deactivate or delete — expected deactivate or delete',
    );
    expect(problems).toHaveLength(3);
  });

  it('reads the replica acknowledgement from the environment or the file, within its bounds', () => {
    const defaults = loadConfig(base, CATALOG, { readFile: (path) => filesOrDisk(path, {}) });
    expect(defaults.redis).toMatchObject({ minReplicas: 0, replicaTimeoutMs: 500 });
    const fromEnv = loadConfig(
      { ...base, REDIS_MIN_REPLICAS: '1', REDIS_REPLICA_TIMEOUT_MS: '250' },
      CATALOG,
      { readFile: (path) => filesOrDisk(path, {}) },
    );
    expect(fromEnv.redis).toMatchObject({ minReplicas: 1, replicaTimeoutMs: 250 });
    const file = { '/etc/bridge.yaml': 'redis:\n  minReplicas: 2\n' };
    const fromFile = loadConfig({ ...base, CONFIG_FILE: '/etc/bridge.yaml' }, CATALOG, {
      readFile: (path) => filesOrDisk(path, file),
    });
    expect(fromFile.redis.minReplicas).toBe(2);
    expect(problemsOf({ ...base, REDIS_MIN_REPLICAS: '-1', REDIS_REPLICA_TIMEOUT_MS: '2000' })).toEqual([
      'REDIS_MIN_REPLICAS: -1 is below 0 — expected a number of replicas from 0 to 16 (0: none)',
      'REDIS_REPLICA_TIMEOUT_MS: 2000 is above 1500 — expected milliseconds, from 10 to 1500',
    ]);
  });

  it('never shows a secret value in a problem', () => {
    const problems = problemsOf({ ...base, ADMIN_TOKEN: 'short-secret' });
    expect(problems).toEqual([
      'ADMIN_TOKEN: shorter than 16 characters — expected a bearer token of at least 16 characters',
    ]);
  });

  it('applies defaults, then CONFIG_FILE, then the environment', () => {
    const files = { '/etc/bridge.yaml': 'target:\n  concurrency: 4\n  maxRps: 50\nhttp:\n  port: 9000\n' };
    const config = loadConfig({ ...base, CONFIG_FILE: '/etc/bridge.yaml', TARGET_MAX_RPS: '20' }, CATALOG, {
      readFile: (path) => filesOrDisk(path, files),
    });
    expect(config.target.concurrency).toBe(4);
    expect(config.target.maxRps).toBe(20);
    expect(config.http.port).toBe(9000);
    expect(config.reconcile.deprovision).toBe('deactivate');
    expect(config.reconcile.deprovisionLimit).toEqual({ count: 500, share: 20 });
    expect(config.reconcile.sourceShrinkLimit).toBe(30);
    expect(Object.isFrozen(config.target)).toBe(true);
  });

  it('reports unknown keys and unreadable files of CONFIG_FILE', () => {
    expect(problemsOf({ ...base, CONFIG_FILE: '/nope.yaml' })).toEqual([
      'CONFIG_FILE: cannot read /nope.yaml (ENOENT) — expected the path of a YAML file',
    ]);
    const files = { '/c.yaml': 'target:\n  concurency: 4\n' };
    expect(problemsOf({ ...base, CONFIG_FILE: '/c.yaml' }, files)).toEqual([
      'CONFIG_FILE: target.concurency is not a setting — see config/default.yaml for the settings',
    ]);
  });

  it('reads *_FILE secrets and refuses both forms at once', () => {
    const files = { '/run/secrets/token': 'from-file-token\n' };
    const env = { ...base, TARGET_TOKEN: '', TARGET_TOKEN_FILE: '/run/secrets/token' };
    expect(loadConfig(env, CATALOG, { readFile: (p) => filesOrDisk(p, files) }).target.token).toBe(
      'from-file-token',
    );
    expect(problemsOf({ ...base, TARGET_TOKEN_FILE: '/run/secrets/token' }, files)).toEqual([
      'TARGET_TOKEN: set both TARGET_TOKEN and TARGET_TOKEN_FILE — expected only one of them',
    ]);
  });

  it('takes several inbound secrets, one per line, each checked and each scrubbed from logs', () => {
    const old = 'admin-token-old-00000000001';
    const next = 'admin-token-new-00000000002';
    const files = { '/run/secrets/admin': `${old}\n${next}\n` };
    const config = loadConfig({ ...base, ADMIN_TOKEN_FILE: '/run/secrets/admin' }, CATALOG, {
      readFile: (p) => filesOrDisk(p, files),
    });
    expect(secretValues(config, CATALOG)).toEqual(expect.arrayContaining([old, next]));
    expect(problemsOf({ ...base, ADMIN_TOKEN: `${old}\nshort-one` })).toEqual([
      'ADMIN_TOKEN: shorter than 16 characters — expected a bearer token of at least 16 characters',
    ]);
    expect(problemsOf({ ...base, ADMIN_TOKEN: '\n\n' })).toEqual([
      'ADMIN_TOKEN: shorter than 16 characters — expected a bearer token of at least 16 characters',
    ]);
    expect(problemsOf({ ...base, TARGET_TOKEN: 'target-token-one\ntarget-token-two' })).toEqual([
      "TARGET_TOKEN: more than one line (the platform takes one token) — expected the platform's SCIM bearer token",
    ]);
  });

  it('parses DEPROVISION_LIMIT as a count, a share or both, and prints it in that form', () => {
    const load = (v: string) =>
      loadConfig({ ...base, DEPROVISION_LIMIT: v }, CATALOG, { readFile: (p) => filesOrDisk(p, {}) });
    expect(load('10%').reconcile.deprovisionLimit).toEqual({ share: 10 });
    expect(load('0').reconcile.deprovisionLimit).toEqual({ count: 0 });
    expect(load(' 20% , 500 ').reconcile.deprovisionLimit).toEqual({ count: 500, share: 20 });
    const printed = maskConfig(load('500,20%'), CATALOG) as { reconcile: Record<string, unknown> };
    expect(printed.reconcile).toMatchObject({ deprovisionLimit: '500,20%', sourceShrinkLimit: '30%' });
    for (const bad of ['150%', '500,600', '10%,20%', '500;20%', '', 'ten'])
      expect(problemsOf({ ...base, DEPROVISION_LIMIT: bad }), bad).toEqual([
        `DEPROVISION_LIMIT: ${JSON.stringify(bad)} is not a count, a share or both — expected a count such as 500, a share such as 20%, or both such as 500,20% (the smaller holds)`,
      ]);
  });

  it('parses SOURCE_SHRINK_LIMIT as a share', () => {
    const load = (v: string) =>
      loadConfig({ ...base, SOURCE_SHRINK_LIMIT: v }, CATALOG, { readFile: (p) => filesOrDisk(p, {}) });
    expect(load('40%').reconcile.sourceShrinkLimit).toBe(40);
    expect(load('100%').reconcile.sourceShrinkLimit).toBe(100);
    expect(problemsOf({ ...base, SOURCE_SHRINK_LIMIT: '30' })).toEqual([
      'SOURCE_SHRINK_LIMIT: "30" is not a share from 0% to 100% — expected a share such as 30%',
    ]);
  });

  it('checks the settings that depend on each other', () => {
    const problems = problemsOf({
      ...base,
      DIRECTORY_SOURCE: 'ldap',
      OKTA_ORG_URL: 'https://acme.okta.com',
      SYNC_SCHEDULE: 'often',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'SYNC_SCHEDULE: "often" is not a cron expression — expected a cron expression such as \'0 */4 * * *\', or empty',
        'OKTA_API_TOKEN: required when OKTA_ORG_URL is set — expected an Okta API token',
        'LDAP_URL: required when DIRECTORY_SOURCE=ldap — expected an ldap:// or ldaps:// URL',
        'LDAP_USER_BASE: required when DIRECTORY_SOURCE=ldap — expected a base DN, e.g. ou=people,dc=example,dc=com',
      ]),
    );
  });

  it('hash-tags the key prefix', () => {
    expect(hashTagged('acme')).toBe('{acme}');
    expect(hashTagged('{acme}:x')).toBe('{acme}:x');
  });

  it('masks secrets and URL passwords for printing', () => {
    const config = loadConfig(
      { ...base, REDIS_URL: 'redis://:p%40ss@redis:6379', ADMIN_TOKEN: 'admin-token-0123456789' },
      CATALOG,
      { readFile: (p) => filesOrDisk(p, {}) },
    );
    const printed = JSON.stringify(maskConfig(config, CATALOG));
    for (const secret of secretValues(config, CATALOG)) expect(printed).not.toContain(secret);
    expect(secretValues(config, CATALOG)).toEqual(
      expect.arrayContaining(['p@ss', 'target-token-value', 'admin-token-0123456789']),
    );
    expect(printed).toContain('redis://:********@redis:6379');
  });
});

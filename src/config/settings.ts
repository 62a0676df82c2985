import type { SectionSettings, SettingKind, SettingsCatalog } from './catalog.js';

export type { SettingKind } from './catalog.js';

/**
 * The table of settings that environment variables can set: variable → path in the nested config,
 * how to read the string, whether it is a secret, and the expected form used in error messages.
 * config/default.yaml holds the defaults. This table names the bridge's own variables; each input
 * kind declares its own (catalog.ts), and settingsFor puts them together.
 */

export interface Setting {
  env: string;
  path: readonly string[];
  kind: SettingKind;
  secret?: boolean;
  /** The expected form, shown after the problem: "expected …". */
  expected: string;
}

const s = (env: string, path: string, kind: SettingKind, expected: string, secret = false): Setting => ({
  env,
  path: path.split('.'),
  kind,
  expected,
  secret,
});

export const SETTINGS: readonly Setting[] = [
  s('PORT', 'http.port', 'integer', 'a port number from 1 to 65535 (0 picks a free one)'),
  s('HOST', 'http.host', 'string', 'an interface address, e.g. 0.0.0.0'),
  s('BODY_LIMIT_BYTES', 'http.bodyLimitBytes', 'integer', 'a number of bytes, at least 1024'),
  s('SNAPSHOT_LIMIT_BYTES', 'http.snapshotLimitBytes', 'integer', 'a number of bytes, at least 1024'),
  s(
    'SNAPSHOT_STREAM_LIMIT_BYTES',
    'http.snapshotStreamLimitBytes',
    'integer',
    'a number of bytes, at least 1024',
  ),
  s('SHUTDOWN_TIMEOUT_SECONDS', 'http.shutdownTimeoutSeconds', 'integer', 'seconds, from 1 to 600'),
  s(
    'PUBLIC_URL',
    'http.publicUrl',
    'string',
    "the bridge's public base URL, e.g. https://bridge.example.com",
  ),
  s(
    'TRUST_PROXY',
    'http.trustProxy',
    'string',
    'false, true, a hop count such as 1, or proxy addresses such as 10.0.0.0/8,loopback',
  ),
  s('REDIS_URL', 'redis.url', 'string', 'a redis:// or rediss:// URL, e.g. redis://redis:6379/0', true),
  s('KEY_PREFIX', 'redis.keyPrefix', 'string', 'letters, digits and -_:{}. e.g. {scim-bridge}'),
  s('REDIS_MIN_REPLICAS', 'redis.minReplicas', 'integer', 'a number of replicas from 0 to 16 (0: none)'),
  s('REDIS_REPLICA_TIMEOUT_MS', 'redis.replicaTimeoutMs', 'integer', 'milliseconds, from 10 to 1500'),
  s('TARGET_URL', 'target.url', 'string', "the platform's tenant base URL, e.g. https://acme.example.com"),
  s('TARGET_TOKEN', 'target.token', 'string', "the platform's SCIM bearer token", true),
  s('TARGET_CONCURRENCY', 'target.concurrency', 'integer', 'an integer from 1 to 256'),
  s('TARGET_MAX_RPS', 'target.maxRps', 'integer', 'requests per second, 0 for no cap'),
  s('TARGET_TIMEOUT_SECONDS', 'target.timeoutSeconds', 'integer', 'seconds, from 1 to 600'),
  s('INBOUND_SCIM_TOKEN', 'inbound.scimToken', 'string', 'a bearer token of at least 16 characters', true),
  s('ADMIN_TOKEN', 'inbound.adminToken', 'string', 'a bearer token of at least 16 characters', true),
  s('WEBHOOK_SECRET', 'inbound.webhookSecret', 'string', 'a secret of at least 16 characters', true),
  s('OKTA_HOOK_SECRET', 'inbound.oktaHookSecret', 'string', 'the Authorization value set in Okta', true),
  s('METRICS_TOKEN', 'inbound.metricsToken', 'string', 'a bearer token of at least 16 characters', true),
  s('DEPROVISION', 'reconcile.deprovision', 'string', 'deactivate or delete'),
  s(
    'DEPROVISION_LIMIT',
    'reconcile.deprovisionLimit',
    'string',
    'a count such as 500, a share such as 20%, or both such as 500,20% (the smaller holds)',
  ),
  s('SOURCE_SHRINK_LIMIT', 'reconcile.sourceShrinkLimit', 'string', 'a share such as 30%'),
  s('SYNC_SCHEDULE', 'reconcile.syncSchedule', 'string', "a cron expression such as '0 */4 * * *', or empty"),
  s('WORKER_CONCURRENCY', 'reconcile.workerConcurrency', 'integer', 'an integer from 1 to 1024'),
  s('RECONCILE_ATTEMPTS', 'reconcile.attempts', 'integer', 'an integer from 1 to 100'),
  s('RECONCILE_BACKOFF_MS', 'reconcile.backoffMs', 'integer', 'milliseconds, from 10 to 600000'),
  s('RECONCILE_LOCK_SECONDS', 'reconcile.lockSeconds', 'integer', 'seconds, from 1 to 600'),
  s('LOG_LEVEL', 'log.level', 'string', 'fatal, error, warn, info, debug, trace or silent'),
  s('LOG_PRETTY', 'log.pretty', 'boolean', 'true or false'),
];

/** The settings of the directories and inputs of a catalog: their environment variables, by path. */
export function settingsFor(catalog: SettingsCatalog): Setting[] {
  const names = catalog.directorySources.map((source) => source.key);
  const sourceForm = `${['none', ...names].slice(0, -1).join(', ')} or ${names[names.length - 1] ?? 'none'}`;
  const nested = (prefix: string, section: SectionSettings) =>
    section.env.map((e) => s(e.env, `${prefix}${e.key}`, e.kind, e.expected, e.secret));
  return [
    ...SETTINGS,
    s('DIRECTORY_SOURCE', 'directory.source', 'string', sourceForm),
    s(
      'DIRECTORY_NAME',
      'directory.name',
      'string',
      'lower-case letters, digits and .-_ (at most 63), e.g. hr-ldap',
    ),
    s('DIRECTORY_DELTA_SECONDS', 'directory.deltaSeconds', 'integer', 'whole seconds, 0 for full syncs only'),
    ...catalog.directorySources.flatMap((source) => nested(`directory.${source.key}.`, source)),
    ...catalog.inputs.flatMap((section) => nested(`${section.key}.`, section)),
  ];
}

/** Paths of the secrets of the bridge's own sections (the inputs' are their declarations'). */
export const SECRET_PATHS: readonly string[] = SETTINGS.filter((x) => x.secret).map((x) => x.path.join('.'));

export function settingForPath(
  settings: readonly Setting[],
  path: readonly (string | number)[],
): Setting | undefined {
  const joined = path.join('.');
  return settings.find((x) => x.path.join('.') === joined);
}

import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { DIRECTORY_NAME_PATTERN } from '../domain/desired-change.js';
import { policySchema } from '../domain/identity-policy.js';
import { publicUrlSchema, trustProxySchema } from './http-settings.js';
import { inboundSecretProblem, targetTokenProblem } from './secret-lines.js';

/**
 * The nested configuration as zod parses it. Values arrive from YAML (typed) or from environment
 * variables (strings already converted by the settings table), so the schema only checks ranges,
 * forms and the rules that tie settings together.
 */

const int = (min: number, max: number) =>
  z
    .number({ error: 'not a number' })
    .int('not a whole number')
    .min(min, `below ${min}`)
    .max(max, `above ${max}`);

const optionalUrl = (protocols: readonly string[]) =>
  z.string().refine((v) => v === '' || isUrlWith(v, protocols), `not a ${protocols.join(' or ')} URL`);

function isUrlWith(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
  } catch {
    return false;
  }
}

const hostPort = z.string().regex(/^[^\s:]+:\d{1,5}$/, 'not host:port');

/** A share such as `20%`: a whole number of percent, 0 to 100. */
const sharePattern = /^(\d{1,3})%$/;

/**
 * DEPROVISION_LIMIT: a count (`500`), a share of the managed users (`20%`), or both (`500,20%`),
 * of which the smaller holds a sync. Printed back in this form (formatDeprovisionLimit).
 */
export const deprovisionLimitSchema = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const parts = String(v)
    .split(',')
    .map((part) => part.trim());
  const shares = parts.filter((part) => sharePattern.test(part));
  const counts = parts.filter((part) => /^\d+$/.test(part));
  const valid =
    shares.length + counts.length === parts.length &&
    shares.length <= 1 &&
    counts.length <= 1 &&
    shares.every((share) => Number(share.slice(0, -1)) <= 100);
  if (!valid) {
    ctx.addIssue({ code: 'custom', message: 'not a count, a share or both' });
    return z.NEVER;
  }
  return {
    ...(counts[0] === undefined ? {} : { count: Number(counts[0]) }),
    ...(shares[0] === undefined ? {} : { share: Number(shares[0].slice(0, -1)) }),
  };
});

/** SOURCE_SHRINK_LIMIT: a share such as `30%`, kept as the number of percent. */
const shareSchema = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .refine((v) => sharePattern.test(v) && Number(v.slice(0, -1)) <= 100, 'not a share from 0% to 100%')
  .transform((v) => Number(v.slice(0, -1)));

const cronSchema = z.string().refine((v) => {
  if (v.trim() === '') return true;
  try {
    CronExpressionParser.parse(v);
    return true;
  } catch {
    return false;
  }
}, 'not a cron expression');

const ldapSchema = z.object({
  url: optionalUrl(['ldap', 'ldaps']),
  bindDn: z.string(),
  bindPassword: z.string(),
  userBase: z.string(),
  userFilter: z.string().regex(/^\(.*\)$/s, 'not an LDAP filter in parentheses'),
  groupBase: z.string(),
  groupFilter: z.string().regex(/^\(.*\)$/s, 'not an LDAP filter in parentheses'),
  schema: z.enum(['openldap', 'active-directory'], { error: 'not a known preset' }),
  startTls: z.boolean({ error: 'not true or false' }),
  caFile: z.string(),
  rejectUnauthorized: z.boolean({ error: 'not true or false' }),
  pageSize: int(1, 10_000),
  timeoutSeconds: int(1, 600),
  userAttributes: z.record(z.string(), z.string()),
  groupAttributes: z.record(z.string(), z.string()),
  // How the directory says what changed (DIRECTORY_DELTA_SECONDS): auto picks the preset's.
  delta: z.enum(['auto', 'accesslog', 'usn', 'none'], { error: 'not auto, accesslog, usn or none' }),
  accesslogBase: z.string().min(1, 'empty'),
});

/** An input's scope and mapping (docs/scope-and-mapping.md): compiled by its input at start-up. */
const policyShape = { scope: policySchema.shape.scope, mapping: policySchema.shape.mapping };

export const configSchema = z
  .object({
    http: z.object({
      port: int(0, 65_535),
      host: z.string().min(1, 'empty'),
      bodyLimitBytes: int(1024, 2 ** 31),
      snapshotLimitBytes: int(1024, 2 ** 31),
      snapshotStreamLimitBytes: int(1024, 2 ** 40),
      shutdownTimeoutSeconds: int(1, 600),
      publicUrl: publicUrlSchema,
      trustProxy: trustProxySchema,
    }),
    redis: z.object({
      url: optionalUrl(['redis', 'rediss']),
      keyPrefix: z.string().regex(/^[\w\-:{}.]+$/, 'not a key prefix'),
      sentinel: z.object({ name: z.string(), nodes: z.array(hostPort) }),
      cluster: z.object({ nodes: z.array(hostPort) }),
      // Replicas that must hold an input's write before it is acknowledged (Redis WAIT), and how
      // long WAIT may block: under the HTTP side's 2-second command timeout.
      minReplicas: int(0, 16),
      replicaTimeoutMs: int(10, 1500),
    }),
    target: z.object({
      url: optionalUrl(['http', 'https']),
      token: z.string(),
      concurrency: int(1, 256),
      maxRps: int(0, 100_000),
      timeoutSeconds: int(1, 600),
    }),
    inbound: z.object({
      scimToken: z.string(),
      adminToken: z.string(),
      webhookSecret: z.string(),
      oktaHookSecret: z.string(),
      metricsToken: z.string(),
    }),
    okta: z.object({
      ...policyShape,
      orgUrl: optionalUrl(['https', 'http']),
      apiToken: z.string(),
      // How often the System Log is read for events the hooks missed (0: never).
      logPollSeconds: int(0, 86_400),
    }),
    reconcile: z.object({
      deprovision: z.enum(['deactivate', 'delete'], { error: 'not deactivate or delete' }),
      deprovisionLimit: deprovisionLimitSchema,
      sourceShrinkLimit: shareSchema,
      syncSchedule: cronSchema,
      workerConcurrency: int(1, 1024),
      attempts: int(1, 100),
      backoffMs: int(10, 600_000),
      lockSeconds: int(1, 600),
    }),
    directory: z.object({
      ...policyShape,
      source: z.enum(['none', 'file', 'ldap', 'scim'], { error: 'not a known source' }),
      // The directory's owner name (directory:<name>): what its identities belong to (SPEC §6).
      name: z.string().regex(DIRECTORY_NAME_PATTERN, 'not a directory name'),
      // How often a source that can say what changed is read for it (0: full syncs only).
      deltaSeconds: int(0, 86_400),
      file: z.object({ path: z.string() }),
      ldap: ldapSchema,
      scim: z.object({ url: optionalUrl(['http', 'https']), token: z.string(), pageSize: int(1, 1000) }),
    }),
    log: z.object({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'not a level' }),
      pretty: z.boolean({ error: 'not true or false' }),
    }),
  })
  .superRefine((c, ctx) => {
    const need = (path: string[], ok: boolean, message = 'required') => {
      if (!ok) ctx.addIssue({ code: 'custom', path, message });
    };
    need(['redis', 'url'], c.redis.url !== '');
    need(['target', 'url'], c.target.url !== '');
    need(['target', 'token'], c.target.token !== '');
    need(
      ['target', 'token'],
      c.target.token === '' || targetTokenProblem(c.target.token) === undefined,
      'more than one line (the platform takes one token)',
    );
    for (const [key, value] of Object.entries(c.inbound)) {
      // Several secrets, one per line, are accepted at once (a rotation): each one counts.
      need(
        ['inbound', key],
        value === '' || inboundSecretProblem(value) === undefined,
        'shorter than 16 characters',
      );
    }
    need(
      ['okta', 'apiToken'],
      c.okta.orgUrl === '' || c.okta.apiToken !== '',
      'required when OKTA_ORG_URL is set',
    );
    need(
      ['okta', 'orgUrl'],
      c.okta.apiToken === '' || c.okta.orgUrl !== '',
      'required when OKTA_API_TOKEN is set',
    );
    const d = c.directory;
    need(
      ['directory', 'file', 'path'],
      d.source !== 'file' || d.file.path !== '',
      'required when DIRECTORY_SOURCE=file',
    );
    if (d.source === 'ldap') {
      for (const key of ['url', 'userBase', 'groupBase'] as const) {
        need(['directory', 'ldap', key], d.ldap[key] !== '', 'required when DIRECTORY_SOURCE=ldap');
      }
      need(
        ['directory', 'ldap', 'bindPassword'],
        d.ldap.bindDn === '' || d.ldap.bindPassword !== '',
        'required with a bind DN',
      );
    }
    need(
      ['directory', 'scim', 'url'],
      d.source !== 'scim' || d.scim.url !== '',
      'required when DIRECTORY_SOURCE=scim',
    );
    need(
      ['redis', 'sentinel', 'nodes'],
      c.redis.sentinel.name === '' || c.redis.sentinel.nodes.length > 0,
      'required with a sentinel name',
    );
  });

export type ConfigInput = z.input<typeof configSchema>;
type Parsed = z.output<typeof configSchema>;

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

export type Config = DeepReadonly<Parsed>;
export type DeprovisionLimit = Config['reconcile']['deprovisionLimit'];

/** DEPROVISION_LIMIT in the configuration's own form: `500`, `20%` or `500,20%`. */
export function formatDeprovisionLimit(limit: DeprovisionLimit): string {
  return [limit.count, limit.share === undefined ? undefined : `${limit.share}%`]
    .filter((part) => part !== undefined)
    .join(',');
}

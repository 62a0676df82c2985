import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { policySchema } from '../domain/identity-policy.js';
import { RULE, sectionSchema, type SettingsCatalog } from './catalog.js';
import { directoriesSchema, directorySchema, type DirectoryCommon } from './directory-schema.js';
import { publicUrlSchema, trustProxySchema } from './http-settings.js';
import { withJsonSchemaForm } from './json-schema-forms.js';
import { inboundSecretProblem, targetTokenProblem } from './secret-lines.js';

/**
 * The nested configuration as zod parses it. Values arrive from YAML (typed) or from environment
 * variables (strings already converted by the settings table), so the schema only checks ranges,
 * forms and the rules that tie settings together.
 */

export const int = (min: number, max: number) =>
  z
    .number({ error: 'not a number' })
    .int('not a whole number')
    .min(min, `below ${min}`)
    .max(max, `above ${max}`);

export const optionalUrl = (protocols: readonly string[]) =>
  withJsonSchemaForm(
    z.string().refine((v) => v === '' || isUrlWith(v, protocols), `not a ${protocols.join(' or ')} URL`),
    { type: 'string', pattern: `^$|^(${protocols.join('|')})://` },
  );

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

/** DEPROVISION_LIMIT's form in JSON Schema: one or two parts, each a count or a share. */
const deprovisionLimitForm = {
  oneOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^ *([0-9]+|[0-9]{1,3}%)( *, *([0-9]+|[0-9]{1,3}%))? *$' },
  ],
};

/**
 * DEPROVISION_LIMIT: a count (`500`), a share of the managed users (`20%`), or both (`500,20%`),
 * of which the smaller holds a sync. Printed back in this form (formatDeprovisionLimit).
 */
export const deprovisionLimitSchema = withJsonSchemaForm(
  z.union([z.string(), z.number()]).transform((v, ctx) => {
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
  }),
  deprovisionLimitForm,
);

/** SOURCE_SHRINK_LIMIT: a share such as `30%`, kept as the number of percent. */
const shareSchema = withJsonSchemaForm(
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine((v) => sharePattern.test(v) && Number(v.slice(0, -1)) <= 100, 'not a share from 0% to 100%')
    .transform((v) => Number(v.slice(0, -1))),
  { type: 'string', pattern: '^ *[0-9]{1,3}% *$' },
);

const cronSchema = z.string().refine((v) => {
  if (v.trim() === '') return true;
  try {
    CronExpressionParser.parse(v);
    return true;
  } catch {
    return false;
  }
}, 'not a cron expression');

/** An input's scope and mapping (docs/scope-and-mapping.md): compiled by its input at start-up. */
export const policyShape = { scope: policySchema.shape.scope, mapping: policySchema.shape.mapping };

const baseSchema = z
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
      ['redis', 'sentinel', 'nodes'],
      c.redis.sentinel.name === '' || c.redis.sentinel.nodes.length > 0,
      'required with a sentinel name',
    );
  });

type Parsed = z.output<typeof baseSchema>;

type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/**
 * One directory's settings (SPEC §3): its name, source kind, cadence, scope and mapping, and its
 * source kind's section (`ldap`, `scim`…, read through the kind's declaration: catalog.ts sectionOf).
 */
export type DirectorySettings = DeepReadonly<DirectoryCommon> & Readonly<Record<string, unknown>>;

/**
 * The configuration: the bridge's own sections, the directories (`directory`, the one the
 * environment variables configure, and `directories`, further ones from the config file), and the
 * top-level sections of the other inputs (`okta`), read through their declarations.
 */
export type Config = DeepReadonly<Parsed> & {
  readonly directory: DirectorySettings;
  readonly directories: readonly DirectorySettings[];
} & Readonly<Record<string, unknown>>;
export type DeprovisionLimit = Config['reconcile']['deprovisionLimit'];

/** DEPROVISION_LIMIT in the configuration's own form: `500`, `20%` or `500,20%`. */
export function formatDeprovisionLimit(limit: DeprovisionLimit): string {
  return [limit.count, limit.share === undefined ? undefined : `${limit.share}%`]
    .filter((part) => part !== undefined)
    .join(',');
}

/**
 * The whole configuration's schema for the input kinds of a catalog: the bridge's own sections,
 * each input's top-level section, the first directory (every source kind's section, as
 * config/default.yaml holds them) and the further directories (only their own source's section).
 */
export function configSchemaFor(catalog: SettingsCatalog) {
  const inputs = Object.fromEntries(catalog.inputs.map((section) => [section.key, sectionSchema(section)]));
  return baseSchema
    .extend({
      ...inputs,
      directory: directorySchema(catalog.directorySources),
      directories: directoriesSchema(catalog.directorySources),
    })
    .superRefine((config, ctx) => {
      config.directories.forEach((item, i) => {
        if (String(item.name) === config.directory.name)
          ctx.addIssue({
            code: 'custom',
            path: ['directories', i, 'name'],
            message: "the first directory's name",
          });
      });
      for (const section of catalog.inputs) {
        const settings = (config as Record<string, unknown>)[section.key];
        for (const problem of section.problems?.(settings as never) ?? [])
          ctx.addIssue({
            code: 'custom',
            path: [section.key, ...problem.key.split('.')],
            message: problem.message,
            params: RULE,
          });
      }
    });
}

import { z } from 'zod';
import { DIRECTORY_NAME_PATTERN } from '../domain/desired-change.js';
import { policySchema } from '../domain/identity-policy.js';
import { RULE, sectionSchema, type SectionSettings } from './catalog.js';

/**
 * The directories' settings (SPEC §3): `directory` — the one the environment variables configure —
 * holds every source kind's section, as config/default.yaml does, and each item of `directories`
 * only its own source's section (its defaults filled in from the kind's declaration). Each source
 * kind's rules apply to the directory that uses it.
 */

const commonShape = {
  scope: policySchema.shape.scope,
  mapping: policySchema.shape.mapping,
  // The directory's owner name (directory:<name>): what its identities belong to (SPEC §6).
  name: z.string().regex(DIRECTORY_NAME_PATTERN, 'not a directory name'),
  // How often a source that can say what changed is read for it (0: full syncs only).
  deltaSeconds: z
    .number({ error: 'not a number' })
    .int('not a whole number')
    .min(0, 'below 0')
    .max(86_400, 'above 86400'),
};

/**
 * A further directory's cadence when it gives none: the first directory's default, as
 * config/default.yaml gives it (the further directories have no defaults file; a test holds the two
 * equal).
 */
export const DEFAULT_DELTA_SECONDS = 30;

export const directoryCommonSchema = z.object({ source: z.string(), ...commonShape });
export type DirectoryCommon = z.output<typeof directoryCommonSchema>;

type Sources = readonly SectionSettings[];

function sourceSchema(sources: Sources, none: boolean) {
  const names = [...(none ? ['none'] : []), ...sources.map((s) => s.key)];
  return z.string().refine((v) => names.includes(v), `not a known source (${names.join(', ')})`);
}

/** The first directory: every source kind's section, the chosen one's rules checked. */
export function directorySchema(sources: Sources) {
  const sections = Object.fromEntries(sources.map((s) => [s.key, sectionSchema(s)]));
  return z
    .object({ source: sourceSchema(sources, true), ...commonShape, ...sections })
    .superRefine((directory, ctx) => {
      const chosen = sources.find((s) => s.key === directory.source);
      const settings = (directory as Record<string, unknown>)[directory.source];
      for (const problem of chosen?.problems?.(settings as never) ?? []) {
        const message =
          problem.message === 'required' ? `required when DIRECTORY_SOURCE=${chosen?.key}` : problem.message;
        ctx.addIssue({
          code: 'custom',
          path: [directory.source, ...problem.key.split('.')],
          message,
          params: RULE,
        });
      }
    });
}

/** Further directories: each with its own name and only its own source's section. */
export function directoriesSchema(sources: Sources) {
  const item = z
    .object({
      source: sourceSchema(sources, false),
      ...commonShape,
      deltaSeconds: commonShape.deltaSeconds.default(DEFAULT_DELTA_SECONDS),
    })
    .catchall(z.unknown())
    .transform((directory, ctx) => withSourceSection(sources, directory, ctx));
  return z.array(item).superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const name = String(item.name);
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'used twice' });
      seen.add(name);
    });
  });
}

function withSourceSection(
  sources: Sources,
  directory: Record<string, unknown> & DirectoryCommon,
  ctx: z.RefinementCtx,
): Record<string, unknown> {
  const chosen = sources.find((s) => s.key === directory.source);
  if (!chosen) return directory;
  const known = new Set(['source', ...Object.keys(commonShape), chosen.key]);
  for (const key of Object.keys(directory)) {
    if (!known.has(key))
      ctx.addIssue({ code: 'custom', path: [key], message: `not a setting of a ${chosen.key} directory` });
  }
  const parsed = sectionSchema(chosen).safeParse(directory[chosen.key] ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', path: [chosen.key, ...issue.path.map(String)], message: issue.message });
    return directory;
  }
  for (const problem of chosen.problems?.(parsed.data) ?? []) {
    const message =
      problem.message === 'required' ? `required when source is ${chosen.key}` : problem.message;
    ctx.addIssue({ code: 'custom', path: [chosen.key, ...problem.key.split('.')], message, params: RULE });
  }
  return { ...directory, [chosen.key]: parsed.data };
}

/**
 * What one run of a full sync may do (SPEC §6), decided once from its record and carried as one
 * value: the run's files ask the mode, never the request's flags.
 *
 * - `apply`: plans, may be held by the guards, writes the desired state and applies the plan.
 * - `dry-run`: plans and reports; writes nothing.
 * - `link-only`: records the matches as managed; removes nothing, sends nothing to the platform.
 * - `link-preview`: a dry link-only run: reports what it would link.
 * - `approved`: a held run released by an operator: plans again from what it kept, applies it all.
 */
export type RunModeName = 'apply' | 'dry-run' | 'link-only' | 'link-preview' | 'approved';

export interface RunMode {
  readonly name: RunModeName;
  /** Writes the desired state and its matches (every mode but the dry ones). */
  readonly writes: boolean;
  /** Sends the plan to the platform. */
  readonly sendsToPlatform: boolean;
  /** Plans removals (a link-only run removes nothing). */
  readonly removes: boolean;
  /** May be held for approval by the guards. */
  readonly mayHold: boolean;
  /** Refuses a source that lists no users (an approved run was judged already). */
  readonly refusesEmpty: boolean;
  /** Plans from what a held run kept of its source, not from the source afresh. */
  readonly fromKeptSource: boolean;
  /** Records link lists (linked, unmatched, ambiguous). */
  readonly links: boolean;
}

const MODES: Record<RunModeName, Omit<RunMode, 'name'>> = {
  apply: flags({ writes: true, sendsToPlatform: true, removes: true, mayHold: true, refusesEmpty: true }),
  'dry-run': flags({ removes: true, mayHold: true, refusesEmpty: true }),
  'link-only': flags({ writes: true, links: true }),
  'link-preview': flags({ links: true }),
  approved: flags({ writes: true, sendsToPlatform: true, removes: true, fromKeptSource: true }),
};

function flags(on: Partial<Omit<RunMode, 'name'>>): Omit<RunMode, 'name'> {
  const off = {
    writes: false,
    sendsToPlatform: false,
    removes: false,
    mayHold: false,
    refusesEmpty: false,
    fromKeptSource: false,
    links: false,
  };
  return { ...off, ...on };
}

export function runMode(name: RunModeName): RunMode {
  return { name, ...MODES[name] };
}

/** The mode of a run, from its record's request and whether an operator approved it. */
export function modeOf(record: { dryRun: boolean; linkOnly: boolean }, approved: boolean): RunMode {
  if (approved) return runMode('approved');
  if (record.linkOnly) return runMode(record.dryRun ? 'link-preview' : 'link-only');
  return runMode(record.dryRun ? 'dry-run' : 'apply');
}

import type { Inputs } from '../domain/input.js';

/** One recurring change read of an input: which, how often, what its position is kept as. */
export interface InputPull {
  owner: string;
  read: 'delta';
  everySeconds: number;
  /** What its position is kept as (the watermark's kind). */
  watermarkKind: string;
}

/**
 * The change reads a configuration runs: every input read in full that says what changed, at its
 * own cadence (a directory's deltaSeconds, OKTA_LOG_POLL_SECONDS); 0 turns one off.
 */
export function inputPulls(inputs: Inputs): InputPull[] {
  return [...inputs.deltas()].flatMap(([owner, delta]) =>
    delta.everySeconds > 0 && inputs.get(owner)?.full !== undefined
      ? [
          {
            owner,
            read: 'delta' as const,
            everySeconds: delta.everySeconds,
            watermarkKind: delta.watermarkKind,
          },
        ]
      : [],
  );
}

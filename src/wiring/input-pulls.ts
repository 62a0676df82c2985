import type { Config } from '../config/schema.js';
import type { Inputs } from '../domain/input.js';
import { oktaSettingsOf } from '../sources/okta/okta.settings.js';

/** One recurring pull of an input: a delta read of its source, or a poll of its log. */
export interface InputPull {
  owner: string;
  read: 'delta' | 'poll';
  everySeconds: number;
  /** What its position is kept as (the watermark's kind). */
  watermarkKind: string;
}

/**
 * The pulls a configuration runs: a delta read of every input that has one while
 * DIRECTORY_DELTA_SECONDS is not 0, and Okta's System Log while its API is configured and
 * OKTA_LOG_POLL_SECONDS is not 0.
 */
export function inputPulls(config: Config, inputs: Inputs): InputPull[] {
  const deltas = [...inputs.deltas()].flatMap(([owner, delta]) =>
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
  const { orgUrl, apiToken, logPollSeconds } = oktaSettingsOf(config);
  const okta = orgUrl !== '' && apiToken !== '' && logPollSeconds > 0;
  const poll = {
    owner: 'okta',
    read: 'poll' as const,
    everySeconds: logPollSeconds,
    watermarkKind: 'okta-system-log',
  };
  return [...deltas, ...(okta ? [poll] : [])];
}

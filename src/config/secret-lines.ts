/**
 * A secret's value may hold several secrets, one per line: during a rotation, the old and the new
 * one are both accepted. The checks here are the same at start-up and when a `*_FILE` is re-read.
 */

/** The secrets a configured value holds: one per line, blank lines ignored. */
export function secretLines(value: string): string[] {
  return value.split(/\r?\n/).filter((line) => line.length > 0);
}

/** Why an inbound secret's value cannot be used: one or more lines, each of 16 characters or more. */
export function inboundSecretProblem(value: string): string | undefined {
  const lines = secretLines(value);
  if (lines.length === 0) return 'empty';
  return lines.every((line) => line.length >= 16) ? undefined : 'a line shorter than 16 characters';
}

/** Why the platform token cannot be used: the bridge sends one token, on one line. */
export function targetTokenProblem(value: string): string | undefined {
  if (value === '') return 'empty';
  return /[\r\n]/.test(value) ? 'more than one line (the platform takes one token)' : undefined;
}

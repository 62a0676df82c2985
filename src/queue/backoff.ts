/**
 * Exponential back-off with jitter for retryable failures: base × 2^(attempt-1), scaled by a random
 * factor in [0.5, 1.5) so that many failed jobs do not return at the same moment, capped at 10 min.
 */
export function backoffDelay(attemptsMade: number, baseMs: number, random = Math.random): number {
  const exponential = baseMs * 2 ** Math.max(0, attemptsMade - 1);
  return Math.round(Math.min(exponential, 600_000) * (0.5 + random()));
}

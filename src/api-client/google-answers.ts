import type { Answer } from './answer.js';
import type { AnswerKind, VendorRules } from './vendor-rules.js';

/**
 * How Google's APIs say what HTTP does not (Admin SDK Directory API, "Limits and quotas"; Google
 * JSON API errors: `{"error": {"code", "message", "errors": [{"domain", "reason", "message"}]}}`):
 * throttling may come as a 403 — `userRateLimitExceeded`, `rateLimitExceeded`, `quotaExceeded`, or
 * any error of domain `usageLimits` — to be retried with back-off, not read as a refused
 * credential; `dailyLimitExceeded` is not worth retrying before the day's quota comes back.
 */

const THROTTLING_REASONS: ReadonlySet<string> = new Set([
  'userRateLimitExceeded',
  'rateLimitExceeded',
  'quotaExceeded',
]);

export const googleAnswers: VendorRules = {
  classify(answer: Answer): AnswerKind | undefined {
    if (answer.status !== 403 && answer.status !== 429) return undefined;
    const errors = errorsOf(answer.body);
    if (errors.some((e) => e.reason === 'dailyLimitExceeded')) return 'unavailable';
    const throttled = errors.some(
      (e) => THROTTLING_REASONS.has(e.reason ?? '') || e.domain === 'usageLimits',
    );
    return throttled ? 'throttled' : undefined;
  },
};

function errorsOf(body: unknown): { reason?: string; domain?: string }[] {
  const error = (body as { error?: { errors?: unknown } } | undefined)?.error;
  const errors = typeof error === 'object' && error !== null ? error.errors : undefined;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((e: unknown) => {
    if (typeof e !== 'object' || e === null) return [];
    const { reason, domain } = e as Record<string, unknown>;
    return [
      {
        ...(typeof reason === 'string' ? { reason } : {}),
        ...(typeof domain === 'string' ? { domain } : {}),
      },
    ];
  });
}

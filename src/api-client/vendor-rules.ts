import type { Answer } from './answer.js';
import type { RetryPolicy } from './retry-policy.js';

/**
 * What an answer means, and the hooks through which a vendor's API says it otherwise than HTTP does.
 *
 * - `ok`: 2xx. `absent`: 404/410 (a caller may take it as "gone").
 * - `throttled`: 429, or a vendor's throttling in other words (Google: 403 with
 *   `errors[].reason: userRateLimitExceeded`): waited out, no attempt spent (retry-policy.ts).
 * - `transient`: the policy's statuses (500/502/503/504): tried again with back-off.
 * - `refused`: 401/403, the credential or its permissions: `source_unauthorized`.
 * - `unavailable`: a server error not worth trying again now (501, 505…): `source_unavailable`.
 * - `invalid`: any other answer (other 4xx, a redirect the client does not follow): `source_invalid`.
 */
export type AnswerKind = 'ok' | 'absent' | 'throttled' | 'transient' | 'refused' | 'unavailable' | 'invalid';

/** A credential refused, as a vendor's plain-words hook sees it. */
export interface Refusal {
  status: number;
  /** The vendor's own words (OAuth2 `error: error_description`, an error body's message). */
  detail?: string;
  /** The OAuth2 `error` code of a token endpoint's refusal (RFC 6749 §5.2), e.g. `invalid_client`. */
  oauthError?: string;
}

export interface VendorRules {
  /** The kind of an answer when the vendor says it otherwise; undefined leaves it to HTTP. */
  classify?(answer: Answer): AnswerKind | undefined;
  /** How long a throttled answer asks to wait (ms), when the vendor says it otherwise than `Retry-After`. */
  throttleWaitMs?(answer: Answer): number | undefined;
  /** The vendor's words in an error answer; the default reads the usual fields (errorDetail). */
  detail?(answer: Answer): string | undefined;
  /** A refused credential in plain words for an operator (e.g. what an Entra `AADSTS7000222` means). */
  explainRefusal?(refusal: Refusal): string | undefined;
}

export function kindOf(answer: Answer, policy: RetryPolicy, rules: VendorRules): AnswerKind {
  const own = rules.classify?.(answer);
  if (own !== undefined) return own;
  const { status } = answer;
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'throttled';
  if (policy.statusCodes.includes(status)) return 'transient';
  if (status === 401 || status === 403) return 'refused';
  if (status === 404 || status === 410) return 'absent';
  if (status >= 500) return 'unavailable';
  return 'invalid';
}

const DETAIL_LENGTH = 300;

/**
 * The vendor's words in an error body, from the fields the APIs inputs read use: Okta's
 * `errorSummary`, SCIM's `detail` (RFC 7644 §3.12), OAuth2's `error` and `error_description`
 * (RFC 6749 §5.2), Google's and Microsoft Graph's `error.message`, a plain `message`; else the
 * start of a short non-JSON body. Cut to a few hundred characters.
 */
export function errorDetail(answer: Answer): string | undefined {
  const words = answer.isJson ? wordsOf(answer.body) : answer.text.trim().slice(0, 200);
  return words ? words.replace(/\s+/g, ' ').slice(0, DETAIL_LENGTH) : undefined;
}

function wordsOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const oauth = text(record.error);
  if (oauth !== undefined) {
    const description = text(record.error_description);
    return description === undefined ? oauth : `${oauth}: ${description}`;
  }
  const nested = record.error;
  if (typeof nested === 'object' && nested !== null) {
    const message = text((nested as Record<string, unknown>).message);
    if (message !== undefined) return message;
  }
  for (const field of ['errorSummary', 'detail', 'message', 'error_description']) {
    const value = text(record[field]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

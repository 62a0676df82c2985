/**
 * Bounds on a SCIM filter or PATCH path. RFC 7644 §3.4.2.2 sets none, but one request must not be
 * able to hold the process or Redis for long: what IdPs send is a handful of comparisons (Entra ID
 * and Okta send one or two), so these leave a wide margin. Over a bound the request is refused with
 * 400 `invalidFilter` (RFC 7644 §3.12) — `invalidPath` for a PATCH path — naming the bound. The
 * README lists them under "HTTP surface".
 */
export const FILTER_LIMITS = {
  /** Characters of the filter text. */
  maxLength: 10_000,
  /** Attribute expressions (`attr op value`, `attr pr`), those inside value filters included. */
  maxTerms: 200,
  /** Groupings open at once: parentheses (also those of `not (…)`) and value filters `[…]`. */
  maxDepth: 16,
} as const;

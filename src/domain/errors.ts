/**
 * The one error type of the bridge. Code branches on `code`, never on `message`; the edges translate
 * it: to a JSON error body (admin, webhooks), to a SCIM Error (/scim/v2), to retry or failure (workers).
 */

export type ErrorCode =
  // Inbound requests
  | 'invalid_input'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'not_enabled'
  // The bridge's own dependencies
  | 'store_unavailable'
  | 'internal'
  // The target platform
  | 'target_unauthorized'
  | 'target_forbidden'
  | 'target_not_found'
  | 'target_conflict'
  | 'target_rate_limited'
  | 'target_unavailable'
  | 'target_server_error'
  | 'target_invalid_request'
  | 'target_not_implemented'
  | 'target_network_error'
  | 'target_bad_response'
  // Directory sources
  | 'source_unavailable'
  | 'source_invalid';

const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  invalid_input: 'The request is invalid',
  unauthorized: 'Missing or wrong credentials',
  not_found: 'Not found',
  conflict: 'Conflicts with the current state',
  payload_too_large: 'The request body is over the limit',
  unsupported_media_type: 'The request body must be JSON',
  rate_limited: 'Too many requests',
  not_enabled: 'This endpoint is not enabled in the configuration',
  store_unavailable: 'The state store (Redis) is unavailable',
  internal: 'Internal error',
  target_unauthorized: 'The platform rejected the SCIM token (401)',
  target_forbidden: 'The platform refused the SCIM token (403)',
  target_not_found: 'The platform does not know this resource (404)',
  target_conflict: 'The platform reports a conflict (409)',
  target_rate_limited: 'The platform is rate-limiting requests',
  target_unavailable: 'The platform is unavailable',
  target_server_error: 'The platform answered with a server error',
  target_invalid_request: 'The platform rejected the request as invalid',
  target_not_implemented: 'The platform does not implement this operation',
  target_network_error: 'The platform could not be reached',
  target_bad_response: 'The platform answered with an unreadable response',
  source_unavailable: 'The directory source could not be read',
  source_invalid: 'The directory source returned invalid data',
};

export interface BridgeErrorOptions {
  cause?: unknown;
  /** Whether trying again later may succeed. */
  retryable?: boolean;
  /** How long the other side asked us to wait (Retry-After). */
  retryAfterMs?: number;
  /** HTTP status seen at the target, or to answer with at our edge. */
  status?: number;
  /** The SCIM `detail` of a target error (RFC 7644 §3.12), kept for operators. */
  detail?: string;
  /** The SCIM `scimType` (RFC 7644 §3.12), e.g. uniqueness. */
  scimType?: string;
  /** Problems of an invalid input, as `path: reason` lines. */
  problems?: readonly string[];
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'store_unavailable',
  'target_rate_limited',
  'target_unavailable',
  'target_server_error',
  'target_network_error',
  'source_unavailable',
]);

export class BridgeError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly detail: string | undefined;
  readonly scimType: string | undefined;
  readonly problems: readonly string[];

  constructor(code: ErrorCode, message?: string, options: BridgeErrorOptions = {}) {
    super(
      message ?? DEFAULT_MESSAGES[code],
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'BridgeError';
    this.code = code;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.detail = options.detail;
    this.scimType = options.scimType;
    this.problems = options.problems ?? [];
  }
}

export function isBridgeError(error: unknown, code?: ErrorCode): error is BridgeError {
  return error instanceof BridgeError && (code === undefined || error.code === code);
}

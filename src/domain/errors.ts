/**
 * The one error type of the bridge. Code branches on `code`, never on `message`; the edges translate
 * it: to a JSON error body (admin, webhooks), to a SCIM Error (/scim/v2), to retry or failure (workers).
 */

/** Which side of the bridge failed: what an operator looks at first. */
export type ErrorSide =
  /** A request or command the bridge refused (bad input, credentials, an operator's cancel). */
  | 'input'
  /** The bridge's configuration. */
  | 'config'
  /** The bridge's own state store (Redis). */
  | 'store'
  /** The target platform's SCIM API. */
  | 'platform'
  /** A directory source or an IdP API the bridge reads. */
  | 'source'
  /** The bridge itself (a bug, or a run that stopped without finishing). */
  | 'bridge';

interface CodeInfo {
  side: ErrorSide;
  message: string;
  retryable?: true;
}

/** Every error code, with the side it belongs to and its default message. */
const CODES = {
  // Inbound requests and operators
  invalid_input: { side: 'input', message: 'The request is invalid' },
  unauthorized: { side: 'input', message: 'Missing or wrong credentials' },
  not_found: { side: 'input', message: 'Not found' },
  conflict: { side: 'input', message: 'Conflicts with the current state' },
  payload_too_large: { side: 'input', message: 'The request body is over the limit' },
  unsupported_media_type: { side: 'input', message: 'The request body must be JSON' },
  rate_limited: { side: 'input', message: 'Too many requests' },
  not_enabled: { side: 'input', message: 'This endpoint is not enabled in the configuration' },
  cancelled: { side: 'input', message: 'Cancelled by an operator; writes already sent stay' },
  // Configuration
  config_invalid: { side: 'config', message: 'The configuration is invalid' },
  // The bridge's own dependencies and the bridge itself
  store_unavailable: { side: 'store', message: 'The state store (Redis) is unavailable', retryable: true },
  internal: { side: 'bridge', message: 'Internal error' },
  interrupted: { side: 'bridge', message: 'The run stopped without finishing' },
  // The target platform
  target_unauthorized: { side: 'platform', message: 'The platform rejected the SCIM token (401)' },
  target_forbidden: { side: 'platform', message: 'The platform refused the SCIM token (403)' },
  target_not_found: { side: 'platform', message: 'The platform does not know this resource (404)' },
  target_conflict: { side: 'platform', message: 'The platform reports a conflict (409)' },
  target_rate_limited: {
    side: 'platform',
    message: 'The platform is rate-limiting requests',
    retryable: true,
  },
  target_unavailable: { side: 'platform', message: 'The platform is unavailable', retryable: true },
  target_server_error: {
    side: 'platform',
    message: 'The platform answered with a server error',
    retryable: true,
  },
  target_invalid_request: { side: 'platform', message: 'The platform rejected the request as invalid' },
  target_not_implemented: { side: 'platform', message: 'The platform does not implement this operation' },
  target_network_error: { side: 'platform', message: 'The platform could not be reached', retryable: true },
  target_bad_response: { side: 'platform', message: 'The platform answered with an unreadable response' },
  // Directory sources
  source_unavailable: { side: 'source', message: 'The directory source could not be read', retryable: true },
  source_invalid: { side: 'source', message: 'The directory source returned invalid data' },
  source_unauthorized: {
    side: 'source',
    message: 'The source refused the credential the bridge reads it with',
  },
  watermark_untrusted: {
    side: 'source',
    message: 'The source cannot say what changed since the stored watermark; it is read in full',
  },
  source_empty: {
    side: 'source',
    message: 'The source lists no users while the bridge manages some; nothing was changed',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof CODES;

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
  /** Which side failed, when not the code's own (e.g. Okta's API rate-limiting the bridge: source). */
  side?: ErrorSide;
}

export class BridgeError extends Error {
  readonly code: ErrorCode;
  readonly side: ErrorSide;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly detail: string | undefined;
  readonly scimType: string | undefined;
  readonly problems: readonly string[];

  constructor(code: ErrorCode, message?: string, options: BridgeErrorOptions = {}) {
    super(message ?? CODES[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BridgeError';
    this.code = code;
    this.side = options.side ?? CODES[code].side;
    this.retryable = options.retryable ?? isRetryableCode(code);
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

function isRetryableCode(code: ErrorCode): boolean {
  const info: CodeInfo = CODES[code];
  return info.retryable === true;
}

/** An invalid configuration: one line per problem, naming the setting (SPEC §3). */
export function configError(problems: readonly string[]): BridgeError {
  return new BridgeError('config_invalid', `invalid configuration:\n${problems.join('\n')}`, { problems });
}

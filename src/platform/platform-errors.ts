import { BridgeError, type ErrorCode } from '../domain/errors.js';

/** The parts of a target response that decide what kind of failure it is. */
export interface TargetResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * The one function that turns a target response (status ≥ 400) into a typed error: code,
 * retryable, Retry-After, and the SCIM Error's `detail` and `scimType` (RFC 7644 §3.12).
 */
export function errorFromResponse(method: string, route: string, response: TargetResponse): BridgeError {
  const { status } = response;
  const scim = scimErrorFields(response.body);
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  const code = codeForStatus(status);
  const message = `${method} ${route} answered ${status}${scim.detail ? `: ${scim.detail}` : ''}`;
  return new BridgeError(code, message, {
    status,
    detail: scim.detail,
    scimType: scim.scimType,
    retryAfterMs,
  });
}

export function networkError(method: string, route: string, cause: unknown): BridgeError {
  const reason = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.name) : 'error';
  return new BridgeError('target_network_error', `${method} ${route} failed: ${reason}`, { cause });
}

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'target_unauthorized';
  if (status === 403) return 'target_forbidden';
  if (status === 404) return 'target_not_found';
  if (status === 409) return 'target_conflict';
  if (status === 429) return 'target_rate_limited';
  if (status === 501) return 'target_not_implemented';
  if (status === 503) return 'target_unavailable';
  if (status >= 500) return 'target_server_error';
  return 'target_invalid_request';
}

function scimErrorFields(body: unknown): { detail?: string; scimType?: string } {
  if (typeof body !== 'object' || body === null)
    return typeof body === 'string' && body ? { detail: body.slice(0, 500) } : {};
  const record = body as Record<string, unknown>;
  return {
    detail: typeof record.detail === 'string' ? record.detail.slice(0, 1000) : undefined,
    scimType: typeof record.scimType === 'string' ? record.scimType : undefined,
  };
}

/** Retry-After is delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

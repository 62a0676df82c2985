import type { EntraClock } from './entra-clock.js';

/** What a route answers: status, JSON body (none for 204-like answers), extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Per-request identifiers, echoed the way Graph and the token endpoint echo them. */
export interface RequestIds {
  requestId: string;
  /** The caller's `client-request-id` header, or the request id when it sent none. */
  clientRequestId: string;
}

/**
 * Graph's error body (concepts/errors.md): `{"error":{"code","message","innerError":{"date",
 * "request-id","client-request-id"}}}`; clients branch on `code`, never on the message.
 */
export function graphError(
  clock: EntraClock,
  ids: RequestIds,
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): Reply {
  const innerError = {
    date: clock.innerErrorDate(),
    'request-id': ids.requestId,
    'client-request-id': ids.clientRequestId,
  };
  return { status, body: { error: { code, message, innerError } }, ...(headers ? { headers } : {}) };
}

/** OAuth error codes of the token endpoint (RFC 6749 §5.2, reference-error-codes.md). */
export type OAuthError =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_resource'
  | 'unauthorized_client'
  | 'unsupported_grant_type';

/**
 * The token endpoint's error body (reference-error-codes.md "Handling error codes"):
 * `{error, error_description: "AADSTS…: …\r\nTrace ID: …\r\nCorrelation ID: …\r\nTimestamp: …",
 * error_codes: [n], timestamp, trace_id, correlation_id, error_uri}`.
 */
export function stsError(
  clock: EntraClock,
  ids: RequestIds,
  status: number,
  error: OAuthError,
  code: number,
  message: string,
): Reply {
  const timestamp = clock.stsTimestamp();
  const description =
    `AADSTS${code}: ${message}\r\nTrace ID: ${ids.requestId}\r\n` +
    `Correlation ID: ${ids.clientRequestId}\r\nTimestamp: ${timestamp}`;
  return {
    status,
    headers: { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' },
    body: {
      error,
      error_description: description,
      error_codes: [code],
      timestamp,
      trace_id: ids.requestId,
      correlation_id: ids.clientRequestId,
      error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    },
  };
}

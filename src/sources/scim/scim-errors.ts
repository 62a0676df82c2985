import type { ErrorRequestHandler, Response } from 'express';
import { BridgeError } from '../../domain/errors.js';
import { toBridgeError } from '../../http/error-responses.js';

/**
 * The SCIM edge of the bridge's one error type (RFC 7644 §3.12). Every failure of /scim/v2 ends
 * here, so none can turn into scimmy's default "404 Resource not found": a Redis outage answers
 * 503 with Retry-After (the state store is briefly unreachable; the IdP retries), anything
 * unexpected 500 without internals.
 */

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12, table 9: the detail error keywords. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA];
  status: string;
  scimType?: string;
  detail: string;
}

export interface ScimFailure {
  status: number;
  body: ScimErrorBody;
  retryAfterSeconds?: number;
  /** Whether the failure is ours (logged), not the client's. */
  internal: boolean;
}

/** Seconds an IdP is asked to wait while Redis is unreachable. */
const STORE_RETRY_AFTER_SECONDS = 5;

export function scimErrorBody(status: number, detail: string, scimType?: string): ScimErrorBody {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** A 400 with a SCIM detail keyword: what every malformed request raises. */
export function invalid(scimType: ScimType, detail: string): BridgeError {
  return new BridgeError('invalid_input', detail, { scimType, status: 400, detail });
}

/** Ids longer than this are quoted by their start only, so that an error stays small. */
const QUOTED_ID_MAX = 200;

export function resourceNotFound(resourceType: string, id: string): BridgeError {
  const quoted =
    id.length <= QUOTED_ID_MAX
      ? JSON.stringify(id)
      : `${JSON.stringify(id.slice(0, 100))}… (${id.length} characters)`;
  return new BridgeError('not_found', `${resourceType} ${quoted} not found`);
}

function failure(status: number, detail: string, scimType?: string, internal = false): ScimFailure {
  return { status, body: scimErrorBody(status, detail, scimType), internal };
}

function isJsonSyntaxError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'type' in error && error.type === 'entity.parse.failed'
  );
}

export function toScimFailure(error: unknown): ScimFailure {
  if (isJsonSyntaxError(error)) return failure(400, 'The request body is not valid JSON', 'invalidSyntax');
  const bridgeError = toBridgeError(error);
  const detail = bridgeError.detail ?? bridgeError.message;
  switch (bridgeError.code) {
    case 'invalid_input':
      return failure(400, detail, bridgeError.scimType ?? 'invalidValue');
    case 'unauthorized':
      return failure(401, detail);
    case 'not_found':
      return failure(404, detail);
    case 'conflict':
      return failure(409, detail, bridgeError.scimType ?? 'uniqueness');
    case 'payload_too_large':
      return failure(413, detail);
    case 'unsupported_media_type':
      return failure(415, detail);
    case 'not_enabled':
      return failure(501, detail);
    case 'rate_limited':
      return { ...failure(429, detail), retryAfterSeconds: seconds(bridgeError.retryAfterMs, 1) };
    case 'store_unavailable':
      return {
        ...failure(503, 'The bridge cannot reach its state store; retry later', undefined, true),
        retryAfterSeconds: seconds(bridgeError.retryAfterMs, STORE_RETRY_AFTER_SECONDS),
      };
    default:
      return failure(500, 'Internal error', undefined, true);
  }
}

function seconds(ms: number | undefined, fallback: number): number {
  return ms === undefined ? fallback : Math.max(1, Math.ceil(ms / 1000));
}

export function sendScimFailure(res: Response, scimFailure: ScimFailure): void {
  if (scimFailure.retryAfterSeconds !== undefined) {
    res.setHeader('Retry-After', String(scimFailure.retryAfterSeconds));
  }
  res.status(scimFailure.status).type('application/scim+json').json(scimFailure.body);
}

export const scimErrorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  // scimmy-routers answers its own errors (e.g. 501 for /Bulk), then passes those >= 500 on.
  if (res.headersSent) {
    res.end();
    return;
  }
  const scimFailure = toScimFailure(error);
  if (scimFailure.internal) req.log?.error({ err: error }, scimFailure.body.detail);
  sendScimFailure(res, scimFailure);
};

import type { ErrorRequestHandler, Response } from 'express';
import { BridgeError, type ErrorCode } from '../../domain/errors.js';
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

/** How an error code answers at the SCIM edge (RFC 7644 §3.12). */
interface ScimAnswer {
  status: number;
  /** The scimType when the error names none; without one, none is sent. */
  scimType?: ScimType;
  /** Retry-After (seconds) when the error names no wait; without one, none is sent. */
  retryAfterSeconds?: number;
  /** A failure of the bridge's own (logged), answered with this detail: no internals. */
  internal?: string;
}

const ANSWERS: Partial<Record<ErrorCode, ScimAnswer>> = {
  invalid_input: { status: 400, scimType: 'invalidValue' },
  unauthorized: { status: 401 },
  not_found: { status: 404 },
  conflict: { status: 409, scimType: 'uniqueness' },
  payload_too_large: { status: 413 },
  unsupported_media_type: { status: 415 },
  rate_limited: { status: 429, retryAfterSeconds: 1 },
  not_enabled: { status: 501 },
  // The state store is briefly unreachable: the IdP retries.
  store_unavailable: {
    status: 503,
    retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    internal: 'The bridge cannot reach its state store; retry later',
  },
};

const INTERNAL: ScimAnswer = { status: 500, internal: 'Internal error' };

/** Any failure as a SCIM Error; what it is, is the shared converter's to say (toBridgeError). */
export function toScimFailure(error: unknown): ScimFailure {
  const bridgeError = toBridgeError(error);
  const answer = ANSWERS[bridgeError.code] ?? INTERNAL;
  const detail = answer.internal ?? bridgeError.detail ?? bridgeError.message;
  const scimType = answer.scimType === undefined ? undefined : (bridgeError.scimType ?? answer.scimType);
  const out = failure(answer.status, detail, scimType, answer.internal !== undefined);
  if (answer.retryAfterSeconds === undefined) return out;
  return { ...out, retryAfterSeconds: seconds(bridgeError.retryAfterMs, answer.retryAfterSeconds) };
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

function isJsonSyntaxError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'type' in error && error.type === 'entity.parse.failed'
  );
}

/**
 * After the body parser: a body that is no JSON is RFC 7644 §3.12 invalidSyntax (the shared
 * converter knows it only as invalid input). Other errors pass on unchanged.
 */
export const invalidJsonBody: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
  next(isJsonSyntaxError(error) ? invalid('invalidSyntax', 'The request body is not valid JSON') : error);
};

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

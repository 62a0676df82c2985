import type { Response } from 'express';
import { BridgeError, isBridgeError, type ErrorCode } from '../../src/domain/errors.js';
import { ERROR_SCHEMA, type ScimErrorBody } from './scim-types.js';

/**
 * SCIM Errors (RFC 7644 §3.12): `status` is a string, `scimType` one of the RFC's keywords. Inside
 * the target everything throws BridgeError; this is the one place that turns it into a response.
 */

export type ScimErrorType =
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

export const SCIM_CONTENT_TYPE = 'application/scim+json';

export function scimErrorBody(status: number, detail: string, scimType?: string): ScimErrorBody {
  return {
    schemas: [ERROR_SCHEMA],
    status: String(status),
    ...(scimType === undefined ? {} : { scimType }),
    detail,
  };
}

/** A 400 with an RFC 7644 §3.12 scimType. */
export function badRequest(scimType: ScimErrorType, detail: string): BridgeError {
  return new BridgeError('invalid_input', detail, { status: 400, scimType, detail });
}

export function notFound(id: string): BridgeError {
  return new BridgeError('not_found', `Resource ${id} not found`, { status: 404 });
}

export function uniquenessConflict(detail: string): BridgeError {
  return new BridgeError('conflict', detail, { status: 409, scimType: 'uniqueness', detail });
}

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  invalid_input: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
};

export function errorResponse(error: unknown): { status: number; body: ScimErrorBody } {
  if (isBridgeError(error)) {
    const status = error.status ?? STATUS_BY_CODE[error.code] ?? 500;
    return { status, body: scimErrorBody(status, error.detail ?? error.message, error.scimType) };
  }
  return { status: 500, body: scimErrorBody(500, 'Internal error of the reference target') };
}

/**
 * Sends a SCIM body. A write whose response the fault plan chose to lose has been applied by now;
 * the client gets a 502 instead of the real answer.
 */
export function sendScim(res: Response, status: number, body?: unknown): void {
  if (res.locals.loseResponse === true) {
    res.locals.fault = 'lost-response';
    sendBody(res, 502, scimErrorBody(502, 'Bad gateway (the response was lost)'));
    return;
  }
  sendBody(res, status, body);
}

function sendBody(res: Response, status: number, body: unknown): void {
  res.status(status);
  if (body === undefined) {
    res.end();
    return;
  }
  res.type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

export function sendScimError(res: Response, error: unknown): void {
  const { status, body } = errorResponse(error);
  sendScim(res, status, body);
}

/** An error the fault plan or the pipeline answers with, never lost. */
export function sendScimFault(
  res: Response,
  status: number,
  detail: string,
  retryAfterSeconds?: number,
): void {
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
  sendBody(res, status, scimErrorBody(status, detail));
}

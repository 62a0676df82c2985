import type { Response } from 'express';
import { ERROR_SCHEMA, type ScimErrorBody } from './scim-types.js';

/**
 * SCIM Errors (RFC 7644 §3.12): `status` is a string, `scimType` one of the RFC's keywords. Inside
 * the target everything throws ScimError; this is the one place that turns it into a response.
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

/** The error the target throws: the HTTP status and SCIM `scimType` it answers with, `detail` as message. */
export class ScimError extends Error {
  override readonly name = 'ScimError';
  readonly status: number;
  readonly scimType: ScimErrorType | undefined;

  constructor(status: number, detail: string, options: { scimType?: ScimErrorType; cause?: unknown } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.scimType = options.scimType;
  }

  /** The SCIM `detail`: the human-readable message. */
  get detail(): string {
    return this.message;
  }
}

export function isScimError(error: unknown): error is ScimError {
  return error instanceof ScimError;
}

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
export function badRequest(scimType: ScimErrorType, detail: string): ScimError {
  return new ScimError(400, detail, { scimType });
}

export function notFound(id: string): ScimError {
  return new ScimError(404, `Resource ${id} not found`);
}

export function uniquenessConflict(detail: string): ScimError {
  return new ScimError(409, detail, { scimType: 'uniqueness' });
}

export function errorResponse(error: unknown): { status: number; body: ScimErrorBody } {
  if (isScimError(error)) {
    return { status: error.status, body: scimErrorBody(error.status, error.detail, error.scimType) };
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

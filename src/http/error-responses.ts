import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { BridgeError, type ErrorCode } from '../domain/errors.js';
import { asBridgeError, isRedisUnavailable } from '../store/redis-errors.js';

const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_input: 400,
  unauthorized: 401,
  not_found: 404,
  not_enabled: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  store_unavailable: 503,
  source_unavailable: 502,
  source_invalid: 502,
  source_unauthorized: 502,
};

/** The code of a 4xx that express, the router or body-parser raised (http-errors' `status`). */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function statusForError(error: BridgeError): number {
  const own = error.side === 'input' && isClientStatus(error.status) ? error.status : undefined;
  return own ?? STATUS[error.code] ?? (error.side === 'platform' ? 502 : 500);
}

/** What a caller is told: an internal error's own message may name internals (it goes to the log). */
export function publicMessage(error: BridgeError): string {
  return error.code === 'internal' ? new BridgeError('internal').message : error.message;
}

/** The JSON error body outside /scim/v2 (SPEC §4): {"error": {"code", "message", "problems"?}}. */
export function sendError(res: Response, error: BridgeError): void {
  const body: { code: string; message: string; problems?: readonly string[] } = {
    code: error.code,
    message: publicMessage(error),
  };
  if (error.problems.length > 0) body.problems = error.problems;
  if (error.retryAfterMs !== undefined)
    res.setHeader('Retry-After', String(Math.ceil(error.retryAfterMs / 1000)));
  res.status(statusForError(error)).json({ error: body });
}

/**
 * Turns anything thrown into a BridgeError. Body-parser's and the router's own errors keep their
 * 4xx (a malformed `%`-escape in a path, a corrupt gzip body, an aborted upload are the client's
 * fault, never a 500); Redis outages become 503; anything else is internal.
 */
export function toBridgeError(error: unknown): BridgeError {
  if (error instanceof BridgeError || isRedisUnavailable(error)) return asBridgeError(error);
  const type = field(error, 'type');
  if (type === 'entity.too.large') return new BridgeError('payload_too_large', undefined, { cause: error });
  if (type === 'entity.parse.failed')
    return new BridgeError('invalid_input', 'The body is not valid JSON', { cause: error });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new BridgeError('unsupported_media_type', 'Unsupported body encoding', { cause: error });
  }
  const status = Number(field(error, 'status') ?? field(error, 'statusCode'));
  if (isClientStatus(status)) return clientError(error, status);
  return asBridgeError(error);
}

/** A 4xx raised outside the bridge's code, with a message that names no internals. */
function clientError(error: unknown, status: number): BridgeError {
  const code = CODE_OF_STATUS[status] ?? 'invalid_input';
  const type = field(error, 'type');
  const message =
    type === 'request.aborted' || type === 'request.size.invalid'
      ? 'The request body was not received whole'
      : /^Failed to decode param/.test(String(field(error, 'message')))
        ? 'The path holds a malformed %-escape'
        : /^Z_/.test(String(field(error, 'code')))
          ? 'The body is not what its Content-Encoding says (corrupt gzip or deflate data)'
          : undefined;
  return new BridgeError(code, message, { cause: error, status });
}

function isClientStatus(status: number | undefined): status is number {
  return status !== undefined && Number.isInteger(status) && status >= 400 && status < 500;
}

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null && name in error
    ? (error as Record<string, unknown>)[name]
    : undefined;
}

export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  const bridgeError = toBridgeError(error);
  if (bridgeError.code === 'internal' || bridgeError.code === 'store_unavailable') {
    req.log?.error({ err: error }, bridgeError.message);
  }
  if (res.headersSent) return res.end();
  sendError(res, bridgeError);
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new BridgeError('not_found', `No route for ${req.method} ${req.path}`));
};

import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { BridgeError, type ErrorCode } from '../domain/errors.js';
import { isRedisUnavailable } from '../store/redis-errors.js';

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
};

export function statusForError(error: BridgeError): number {
  return STATUS[error.code] ?? (error.side === 'platform' ? 502 : 500);
}

/** The JSON error body outside /scim/v2 (SPEC §4): {"error": {"code", "message", "problems"?}}. */
export function sendError(res: Response, error: BridgeError): void {
  const body: { code: string; message: string; problems?: readonly string[] } = {
    code: error.code,
    message: error.message,
  };
  if (error.problems.length > 0) body.problems = error.problems;
  if (error.retryAfterMs !== undefined)
    res.setHeader('Retry-After', String(Math.ceil(error.retryAfterMs / 1000)));
  res.status(statusForError(error)).json({ error: body });
}

/** Turns anything thrown into a BridgeError: body-parser errors, Redis outages, the rest is internal. */
export function toBridgeError(error: unknown): BridgeError {
  if (error instanceof BridgeError) return error;
  if (isRedisUnavailable(error)) return new BridgeError('store_unavailable', undefined, { cause: error });
  const type = typeof error === 'object' && error !== null && 'type' in error ? String(error.type) : '';
  if (type === 'entity.too.large') return new BridgeError('payload_too_large', undefined, { cause: error });
  if (type === 'entity.parse.failed')
    return new BridgeError('invalid_input', 'The body is not valid JSON', { cause: error });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new BridgeError('unsupported_media_type', 'Unsupported body encoding', { cause: error });
  }
  return new BridgeError('internal', undefined, { cause: error });
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

import type { Request, RequestHandler } from 'express';
import { BridgeError } from '../domain/errors.js';
import { requireUtf8, requireWellFormed } from '../http/body.js';

/** Answers 404 `not_enabled` while the route's secret is unset (SPEC §3: the secret enables it). */
export function requireEnabled(secret: () => string, variable: string): RequestHandler {
  return (_req, _res, next) => {
    if (secret() !== '') return next();
    next(new BridgeError('not_enabled', `This endpoint is not enabled: set ${variable}`));
  };
}

/** The raw body read by `rawBody()`, as bytes (empty when the request had none). */
export function rawBytes(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/**
 * Parses the raw body as JSON, or throws `invalid_input` (400): bytes that are not UTF-8, text
 * that is not JSON, and strings that are not well-formed Unicode (naming where) are all refused
 * before any of it is looked at.
 */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw new BridgeError('invalid_input', 'The body is empty');
  requireUtf8(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8')) as unknown;
  } catch (error) {
    throw new BridgeError('invalid_input', 'The body is not valid JSON', { cause: error });
  }
  requireWellFormed(parsed);
  return parsed;
}

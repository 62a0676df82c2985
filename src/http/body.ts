import express, { type RequestHandler } from 'express';
import { BridgeError } from '../domain/errors.js';

const JSON_TYPES = ['application/json', 'application/scim+json', 'application/*+json'];

/**
 * JSON body parsing with a size limit (413) and a media-type check (415) for requests that carry a
 * body. A body-less POST (e.g. approve) passes through with an empty object.
 */
export function jsonBody(limitBytes: number, types: readonly string[] = JSON_TYPES): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || req.is([...types])) return next();
    next(new BridgeError('unsupported_media_type', `The body must be one of: ${types.join(', ')}`));
  };
  return [requireJson, express.json({ limit: limitBytes, type: [...types], strict: false })];
}

/** The raw body as a Buffer (for signature checks over the exact bytes), with a size limit. */
export function rawBody(limitBytes: number, types: readonly string[] = JSON_TYPES): RequestHandler[] {
  return [express.raw({ limit: limitBytes, type: () => true }), ensureJsonType(types)];
}

function ensureJsonType(types: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    if (!Buffer.isBuffer(req.body) || req.body.length === 0 || req.is([...types])) return next();
    next(new BridgeError('unsupported_media_type', `The body must be one of: ${types.join(', ')}`));
  };
}

import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { secretLines } from '../config/secret-lines.js';
import { BridgeError } from '../domain/errors.js';

/**
 * Compares a given secret with the expected one in constant time: both are hashed first, so neither
 * the content nor the length of the expected value leaks through timing. The expected value may
 * hold several secrets, one per line (during a rotation, the old and the new one): each is compared,
 * so the time taken does not tell which one matched.
 */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  let matched = false;
  for (const one of secretLines(expected)) if (timingSafeEqual(a, digestOf(one))) matched = true;
  return matched;
}

/** Digests of the expected secrets (a handful: admin, SCIM, webhook, metrics), computed once each. */
const digests = new Map<string, Buffer>();
function digestOf(secret: string): Buffer {
  let digest = digests.get(secret);
  if (!digest) {
    if (digests.size >= 16) digests.clear();
    digest = createHash('sha256').update(secret).digest();
    digests.set(secret, digest);
  }
  return digest;
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

export interface BearerAuthOptions {
  /** Returns the accepted token; read per request so a rotated secret applies at once. */
  token: () => string;
  realm: string;
  /** Answers a rejected request; by default the JSON error of the admin and webhook edges. */
  reject?: (req: Request, res: Response, next: NextFunction) => void;
}

export function bearerAuth(options: BearerAuthOptions): RequestHandler {
  return (req, res, next) => {
    const given = bearerToken(req.headers.authorization);
    if (given !== undefined && secretsEqual(given, options.token())) return next();
    res.setHeader('WWW-Authenticate', `Bearer realm="${options.realm}"`);
    if (options.reject) return options.reject(req, res, next);
    next(
      new BridgeError('unauthorized', given === undefined ? 'Missing bearer token' : 'Wrong bearer token'),
    );
  };
}

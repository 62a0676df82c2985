import { isUtf8 } from 'node:buffer';
import express, { type Request, type RequestHandler } from 'express';
import { BridgeError } from '../domain/errors.js';
import { findMalformedText, formatJsonPath, MALFORMED_TEXT_REASON } from '../domain/well-formed-text.js';

const JSON_TYPES = ['application/json', 'application/scim+json', 'application/*+json'];

/** The charset names of UTF-8 (RFC 8259 §8.1: JSON exchanged between systems is UTF-8). */
const UTF8_NAMES = new Set(['utf-8', 'utf8']);

/**
 * JSON body parsing with a size limit (413), a media-type check (415), UTF-8 only (415 for another
 * declared charset, 400 for bytes that are not UTF-8) and well-formed text (400 naming the value
 * that holds a lone surrogate). A body-less POST (e.g. approve) passes through with an empty object.
 * `alsoTaken`: the media types a handler before this one takes (NDJSON on POST /admin/sync), named
 * beside the JSON ones in the 415.
 */
export function jsonBody(
  limitBytes: number,
  types: readonly string[] = JSON_TYPES,
  alsoTaken: readonly string[] = [],
): RequestHandler[] {
  const taken = [...types, ...alsoTaken].join(', ');
  const requireJson: RequestHandler = (req, _res, next) => {
    if (!hasBody(req) || req.is([...types])) return next();
    next(new BridgeError('unsupported_media_type', `The body must be one of: ${taken}`));
  };
  const parse = express.json({
    limit: limitBytes,
    type: [...types],
    strict: false,
    verify: requireUtf8Bytes,
  });
  return [requireJson, utf8Only, parse, requireWellFormedBody];
}

/** The raw body as a Buffer (for signature checks over the exact bytes), with a size limit. */
export function rawBody(limitBytes: number, types: readonly string[] = JSON_TYPES): RequestHandler[] {
  return [utf8Only, express.raw({ limit: limitBytes, type: () => true }), ensureJsonType(types)];
}

/**
 * Refuses (415) a body whose Content-Type declares a charset other than UTF-8, on every route:
 * a parser honouring `charset=utf-7` would turn `+ADw-` into `<`, past every check made on the
 * bytes. A body without a charset is read as UTF-8.
 */
export const utf8Only: RequestHandler = (req, _res, next) => {
  const charset = hasBody(req) ? declaredCharset(req.headers['content-type']) : undefined;
  if (charset === undefined || UTF8_NAMES.has(charset)) return next();
  const shown = JSON.stringify(charset.slice(0, 40));
  next(new BridgeError('unsupported_media_type', `The body's charset ${shown} is not supported: send UTF-8`));
};

/** The bytes of a body that must be UTF-8: bytes that are not (latin-1, say) are refused. */
export function requireUtf8(bytes: Buffer): void {
  if (!isUtf8(bytes)) throw new BridgeError('invalid_input', 'The body is not valid UTF-8', { status: 400 });
}

/** A parsed body holding a lone surrogate (`"\ud800"`) is refused, naming where it is. */
export function requireWellFormed(value: unknown): void {
  const path = findMalformedText(value);
  if (path === undefined) return;
  const problem = `${formatJsonPath(path)}: ${MALFORMED_TEXT_REASON}`;
  throw new BridgeError('invalid_input', `The body is invalid: ${problem}`, {
    status: 400,
    problems: [problem],
  });
}

const requireUtf8Bytes = (_req: unknown, _res: unknown, bytes: Buffer): void => requireUtf8(bytes);

const requireWellFormedBody: RequestHandler = (req, _res, next) => {
  try {
    requireWellFormed(req.body);
    next();
  } catch (error) {
    next(error);
  }
};

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** The charset parameter of a Content-Type value, lower-cased and unquoted, or undefined. */
function declaredCharset(contentType: string | undefined): string | undefined {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name, ...value] = parameter.split('=');
    if (name?.trim().toLowerCase() !== 'charset') continue;
    return value
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

function ensureJsonType(types: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    if (!Buffer.isBuffer(req.body) || req.body.length === 0 || req.is([...types])) return next();
    next(new BridgeError('unsupported_media_type', `The body must be one of: ${types.join(', ')}`));
  };
}

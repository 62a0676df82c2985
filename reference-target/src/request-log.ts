import { pino, type DestinationStream } from 'pino';

/**
 * The target's request log: one JSON line per SCIM request (method, normalised route, status,
 * timing, fault). A line never holds a header or a body, so never a token.
 */

/** What the target needs of a logger; a pino logger is one. */
export interface RequestLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

/** A pino logger writing JSON lines to `destination` (stdout by default). */
export function createRequestLogger(destination: DestinationStream = pino.destination(1)): RequestLogger {
  return pino({ level: 'info', base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

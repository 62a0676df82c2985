import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: X-Request-Id when sane, else a new UUID (echoed in the response). */
    id: string;
    /** A child logger carrying the request id, made on first use. */
    log: Logger;
  }
}

const REQUEST_ID = /^[\w\-.:]{1,128}$/;
const QUIET_PATHS = new Set(['/healthz', '/metrics', '/readyz']);

/** Inbound sources counted by scim_bridge_inbound_requests_total; other paths are not counted. */
export function inboundSource(path: string): string | undefined {
  if (path.startsWith('/scim/v2')) return 'scim';
  if (path.startsWith('/webhooks/events')) return 'events';
  if (path.startsWith('/webhooks/okta')) return 'okta';
  if (path.startsWith('/admin')) return 'admin';
  return undefined;
}

/**
 * One log line per request (method, path, status, duration, request id) when it ends. Headers and
 * bodies are never logged. The per-request child logger is only built when a handler uses it, so
 * a busy route pays for one line, not for a logger per request.
 */
export function requestLogging(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      get: () => (child ??= logger.child({ reqId: id })),
    });
    const started = performance.now();
    // Worked out now: by 'finish', req.path is relative to the router that answered.
    const source = inboundSource(req.path);
    res.on('finish', () => {
      if (source) metrics.inboundRequests.inc({ source, status: String(res.statusCode) });
      if (QUIET_PATHS.has(req.path) && res.statusCode < 500) return;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      logger[level](
        { reqId: id, method: req.method, url: req.originalUrl, status: res.statusCode, durationMs },
        'request',
      );
    });
    next();
  };
}

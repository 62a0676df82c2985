import { createHmac } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type Request, type RequestHandler } from 'express';
import { BridgeError } from '../domain/errors.js';
import { bearerAuth, bearerToken, secretsEqual } from '../http/auth.js';
import type { AdminSessionStore } from '../store/admin-session.store.js';

/**
 * bull-board at /admin/queues, read-only, behind the admin token. A browser cannot send a bearer
 * header when it opens a page, so the dashboard first calls POST /admin/queues/session with the
 * token, which opens a session (admin-session.store.ts: in Redis, expiring after 8 hours) and sets
 * an HttpOnly, SameSite=Strict cookie scoped to this path alone — `Secure` when the request came
 * over HTTPS (as TRUST_PROXY lets the bridge see behind a proxy) or PUBLIC_URL is https.
 * DELETE /admin/queues/session (the dashboard's sign-out) closes it on the server. A session is
 * bound to the admin token it was opened with: a new ADMIN_TOKEN ends it. The admin API itself never
 * accepts cookies (so it needs no CSRF defence). Bearer requests work too (scripts).
 */

export interface AdminQueuesDeps {
  token: () => string;
  queues: readonly Queue[];
  /** Where the router is mounted, for the board's links and assets. */
  basePath: string;
  sessions: AdminSessionStore;
  /** Marks the cookie Secure whatever the request says (PUBLIC_URL is https). */
  alwaysSecure?: boolean;
}

const COOKIE = 'scim-bridge-queues';
const MAX_AGE_SECONDS = 8 * 3600;

/** bull-board's page styles itself inline; everything else comes from this origin. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

export function adminQueuesRouter(deps: AdminQueuesDeps): Router {
  const board = new ExpressAdapter();
  board.setBasePath(deps.basePath);
  createBullBoard({
    queues: deps.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'scim-bridge queues' } },
  });
  const router = Router();
  router.use((_req, _res, next) => {
    if (deps.token() === '')
      return next(new BridgeError('not_enabled', 'The admin API is not enabled: set ADMIN_TOKEN'));
    next();
  });
  const cookie = (req: Request) => ({
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: deps.alwaysSecure === true || req.secure,
    path: deps.basePath.replace(/\/+$/, '') || '/',
  });
  router.post('/session', bearerAuth({ token: deps.token, realm: 'scim-bridge admin' }), async (req, res) => {
    const id = await deps.sessions.open(sessionValue(deps.token()), MAX_AGE_SECONDS);
    res.cookie(COOKIE, id, { ...cookie(req), maxAge: MAX_AGE_SECONDS * 1000 });
    res.status(204).end();
  });
  router.delete('/session', async (req, res) => {
    const id = readCookie(req.headers.cookie, COOKIE);
    if (id !== undefined) await deps.sessions.close(id);
    res.clearCookie(COOKIE, cookie(req));
    res.status(204).end();
  });
  router.use(sessionOrBearer(deps));
  router.use((_req, res, next) => {
    res.set({ 'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' });
    next();
  });
  router.use(withoutExternalFonts);
  router.use(board.getRouter() as Router);
  return router;
}

/**
 * bull-board's page links web fonts on a CDN; nothing outside the machine is asked for (the CSP
 * would block it anyway), so the link is taken out of the page and the system fonts apply.
 */
const withoutExternalFonts: RequestHandler = (_req, res, next) => {
  const send = res.send.bind(res);
  res.send = (body?: unknown) =>
    send(
      typeof body === 'string'
        ? body.replace(/<link[^>]*\/\/fonts\.(googleapis|gstatic)\.com[^>]*>/g, '')
        : body,
    );
  next();
};

function sessionValue(token: string): string {
  return createHmac('sha256', token).update('scim-bridge queue board session').digest('base64url');
}

/** A live session opened with the current admin token, or else the bearer token. */
function sessionOrBearer(deps: AdminQueuesDeps): RequestHandler {
  const bearer = bearerAuth({ token: deps.token, realm: 'scim-bridge admin' });
  return async (req, res, next) => {
    const id = readCookie(req.headers.cookie, COOKIE);
    if (id !== undefined && bearerToken(req.headers.authorization) === undefined) {
      const openedWith = await deps.sessions.read(id);
      if (openedWith !== undefined && secretsEqual(openedWith, sessionValue(deps.token()))) return next();
    }
    bearer(req, res, next);
  };
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

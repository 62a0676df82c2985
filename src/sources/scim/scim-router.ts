import { Router, type Request, type RequestHandler } from 'express';
import { BridgeError } from '../../domain/errors.js';
import { checkPlatformRules } from '../../domain/platform-rules.js';
import { bearerAuth, bearerToken } from '../../http/auth.js';
import { jsonBody } from '../../http/body.js';
import type { DesiredStateQueries } from '../../store/desired-state.queries.js';
import { DesiredStateApi } from '../desired-state.api.js';
import { groupRules } from './groups.rules.js';
import { KeyedLock } from './keyed-lock.js';
import { resourceRouter } from './resource.routes.js';
import { rootSearchRouter } from './root-search.routes.js';
import type { ScimContext } from './scim-context.js';
import { invalidJsonBody, scimErrorHandler, sendScimFailure, toScimFailure } from './scim-errors.js';
import { discoveryRouter, rememberOrigin } from './scimmy-discovery.js';
import { userRules } from './users.rules.js';

/**
 * The bridge's SCIM 2.0 server (RFC 7643/7644) for IdP push, mounted at /scim/v2 (SPEC §5.1).
 *
 * In order: SCIM content type on every answer; the query pinned (express 5 re-parses `req.query` on
 * every read, so scimmy-routers' casting of startIndex/count would be lost); bearer authentication
 * (constant time, SCIM 401 with `WWW-Authenticate: Bearer`); JSON bodies (`application/scim+json`
 * and `application/json`, over the limit 413); /Users, /Groups and the root `POST /.search` served
 * from the desired state by the bridge's own routes; discovery and the remaining endpoints by
 * scimmy-routers; one error handler that maps every failure to a SCIM Error.
 *
 * /Users and /Groups do not go through scimmy's Resource classes: those re-slice a page their egress
 * handler already paged, turn any ordinary error into "404 Resource not found" (a Redis outage
 * would tell the IdP its users vanished), cannot answer 503, and their filter matching is
 * case-sensitive and rejects escaped quotes. Schemas still come from scimmy (scim-schema.ts).
 */

export interface ScimRouterDeps {
  /** INBOUND_SCIM_TOKEN, read per request so a rotated secret applies at once. */
  token: () => string;
  /** Every accepted write goes through it (and so reaches the target). */
  api: DesiredStateApi;
  /**
   * The reads, scoped to what the IdP pushed (owner `scim`), on a producer connection (fails fast
   * when Redis is down).
   */
  queries: DesiredStateQueries;
  /** The shared (Redis) clock. */
  now: () => number;
  /** Body size limit (HTTP_BODY_LIMIT); 1 MiB by default. */
  bodyLimitBytes?: number;
  /**
   * The public absolute URL of /scim/v2 (e.g. `https://bridge.example.com/scim/v2`) for
   * `meta.location` and `Location`; by default taken from the request (Host, and the protocol as
   * the app's `trust proxy` setting allows).
   */
  baseUrl?: string;
}

const SCIM_TYPES = ['application/scim+json', 'application/json', 'application/*+json'];
const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function scimRouter(deps: ScimRouterDeps): Router {
  const bases = new WeakMap<Request, string>();
  const context: ScimContext = {
    api: platformChecked(deps.api),
    // The IdP sees and changes only what it pushed (SPEC §6, Ownership): another input's identity
    // is a SCIM 404 to it, and its filters do not find it.
    queries: deps.queries,
    locks: new KeyedLock(),
    now: deps.now,
    base: (req) => bases.get(req) ?? requestBase(req) ?? '',
  };
  const router = Router();
  router.use((req, res, next) => {
    res.type('application/scim+json');
    pinQuery(req);
    const base = deps.baseUrl?.replace(/\/+$/, '') ?? requestBase(req);
    if (base === undefined) return next(new BridgeError('invalid_input', 'The Host header is not a host'));
    bases.set(req, base);
    // scimmy-routers appends the mount path itself: hand it what comes before (PUBLIC_URL's prefix).
    const mount = req.baseUrl;
    rememberOrigin(
      req,
      base.endsWith(mount) ? base.slice(0, base.length - mount.length) : new URL(base).origin,
    );
    next();
  });
  router.use(bearerAuth({ token: deps.token, realm: 'scim', reject: rejectUnauthorized }));
  router.use(jsonBody(deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT, SCIM_TYPES), invalidJsonBody);
  router.use(resourceRouter(context, userRules));
  router.use(resourceRouter(context, groupRules));
  router.use(rootSearchRouter(context));
  router.all(['/Me', '/.search'], notImplemented);
  router.use(discoveryRouter());
  router.use(scimErrorHandler);
  return router;
}

/** This mount's URL as the request reached it; undefined when its Host header is not a host. */
function requestBase(req: Request): string | undefined {
  const base = `${req.protocol === 'https' ? 'https' : 'http'}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
  return URL.canParse(base) ? base : undefined;
}

/**
 * Every write checked against the platform's documented rules (domain/platform-rules.ts) first, and
 * made as the `scim` input: it owns what it creates, and changes nothing another input owns.
 */
function platformChecked(api: DesiredStateApi): DesiredStateApi {
  return new DesiredStateApi({
    apply: async (changes, options) => {
      checkPlatformRules(changes);
      return api.apply(changes, { ...options, owner: 'scim' });
    },
  });
}

/** Reads the query once and keeps that object, so that changes made to it are kept. */
function pinQuery(req: Request): void {
  const query: unknown = req.query;
  Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
}

const rejectUnauthorized: RequestHandler = (req, res) => {
  const given = bearerToken(req.headers.authorization);
  const detail = given === undefined ? 'Missing bearer token' : 'Wrong bearer token';
  sendScimFailure(res, toScimFailure(new BridgeError('unauthorized', detail)));
};

const notImplemented: RequestHandler = (req, _res, next) => {
  const hint = req.path === '/.search' ? ': a search across resource types is a POST (RFC 7644 §3.4.3)' : '';
  next(new BridgeError('not_enabled', `${req.path} is not implemented${hint}`));
};

/** `/scim/v2` while INBOUND_SCIM_TOKEN is empty: a SCIM 404 that says how to enable it. */
export function scimDisabledRouter(): Router {
  const router = Router();
  router.use((_req, _res, next) => {
    next(new BridgeError('not_found', 'SCIM push is not enabled: set INBOUND_SCIM_TOKEN'));
  });
  router.use(scimErrorHandler);
  return router;
}

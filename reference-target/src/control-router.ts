import express, { type ErrorRequestHandler, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import type { BearerToken } from './bearer-auth.js';
import type { FaultControls } from './fault-controls.js';
import type { Recorder } from './recorder.js';
import type { ResourceStore } from './resource-store.js';
import { isScimError, ScimError } from './target-errors.js';
import { seedTarget } from './seed.js';

/**
 * `/__control`: the HTTP face of the in-process switches, for a target running in its own process
 * (benchmarks, the CLI). JSON in and out; errors are `{"error": {"code", "message"}}`. Bearer auth
 * with the token the target started with — rotating the SCIM token (`PUT /token`) never locks the
 * controller out. Never recorded, never faulted. `GET /health` needs no token.
 */

export interface ControlParts {
  controlToken: BearerToken;
  scimToken: BearerToken;
  faults: FaultControls;
  recorder: Recorder;
  store: ResourceStore;
  /** Whether the SCIM port is listening (false during a `refuse` outage). */
  scimListening: () => boolean;
}

const SEED_LIMIT_BYTES = 256 * 1024 * 1024;
const retryAfter = z.number().int().min(0).optional();
const outageSchema = z.strictObject({
  mode: z.enum(['refuse', '503']),
  retryAfterSeconds: retryAfter,
  forMs: z.number().int().min(1).optional(),
});

const faultSettingsSchema = z.strictObject({
  latency: z.strictObject({ ms: z.number().min(0), jitterMs: z.number().min(0).optional() }).optional(),
  rateLimit: z.strictObject({ rps: z.number().int().min(1), retryAfterSeconds: retryAfter }).optional(),
  errorRate: z
    .strictObject({
      fraction: z.number().min(0).max(1),
      status: z.union([z.literal(500), z.literal(502), z.literal(503)]),
      retryAfterSeconds: retryAfter,
    })
    .optional(),
  outage: z.union([z.enum(['refuse', '503']).transform((mode) => ({ mode })), outageSchema]).optional(),
  patchUnsupported: z.boolean().optional(),
  lostResponseFraction: z.number().min(0).max(1).optional(),
  /** Restarts the fault generator with this seed. */
  seed: z.number().int().optional(),
});

const seedSchema = z.strictObject({
  users: z.array(z.unknown()).default([]),
  groups: z.array(z.unknown()).default([]),
});
const tokenSchema = z.strictObject({ token: z.string().min(1) });

export function controlRouter(parts: ControlParts): Router {
  const router = express.Router();
  router.get('/health', (_req, res) => {
    res.json({ ok: true, scimListening: parts.scimListening() });
  });
  router.use(requireToken(parts.controlToken));
  router.use(express.json({ limit: SEED_LIMIT_BYTES }));
  mountObservation(router, parts);
  mountSwitches(router, parts);
  mountData(router, parts);
  router.use((_req, res) => sendError(res, 404, 'not_found', 'No such control endpoint'));
  router.use(controlErrorHandler);
  return router;
}

/** `GET /stats[?requests=N]`, `POST /stats/reset`, `GET /state`. */
function mountObservation(router: Router, parts: ControlParts): void {
  router.get('/stats', (req, res) => {
    const limit =
      typeof req.query.requests === 'string' ? Number.parseInt(req.query.requests, 10) : Number.NaN;
    res.json(parts.recorder.stats(Number.isNaN(limit) ? {} : { limit }));
  });
  router.post('/stats/reset', (_req, res) => {
    parts.recorder.reset();
    res.status(204).end();
  });
  router.get('/state', (_req, res) => {
    res.json(parts.store.counts());
  });
}

/** `GET`/`PUT /faults` (`{}` clears every fault; `seed` reseeds), `PUT /token`. */
function mountSwitches(router: Router, parts: ControlParts): void {
  router.get('/faults', (_req, res) => {
    res.json(parts.faults.current());
  });
  router.put('/faults', async (req, res) => {
    const { seed, ...settings } = parse(faultSettingsSchema, req.body);
    if (seed !== undefined) parts.faults.reseed(seed);
    await parts.faults.apply(settings);
    res.json(parts.faults.current());
  });
  router.put('/token', (req, res) => {
    parts.scimToken.set(parse(tokenSchema, req.body).token);
    res.status(204).end();
  });
}

/** `POST /seed`, `POST /clear`. */
function mountData(router: Router, parts: ControlParts): void {
  router.post('/seed', (req, res) => {
    const body = parse(seedSchema, req.body);
    res.json(seedTarget(parts.store, body.users, body.groups));
  });
  router.post('/clear', (_req, res) => {
    parts.store.clear();
    res.status(204).end();
  });
}

function requireToken(token: BearerToken): RequestHandler {
  return (req, res, next) => {
    if (token.accepts(req.get('authorization'))) next();
    else sendError(res, 401, 'unauthorized', 'Missing or wrong bearer token');
  };
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
  );
  throw new ScimError(400, problems.join('; '));
}

/** The control API's error codes, by the status of the error the target threw. */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_input',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

const controlErrorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined;
  if (isScimError(error))
    sendError(res, error.status, CODE_BY_STATUS[error.status] ?? 'internal', error.detail);
  else if (type === 'entity.too.large')
    sendError(res, 413, 'payload_too_large', 'The request body is over the limit');
  else if (type !== undefined) sendError(res, 400, 'invalid_input', 'The request body is not valid JSON');
  else sendError(res, 500, 'internal', error instanceof Error ? error.message : 'Internal error');
};

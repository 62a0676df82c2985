import express, {} from 'express';
import { z } from 'zod';
import { BridgeError, isBridgeError } from '../../src/domain/errors.js';
import { seedTarget } from './seed.js';
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
export function controlRouter(parts) {
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
function mountObservation(router, parts) {
    router.get('/stats', (req, res) => {
        const limit = typeof req.query.requests === 'string' ? Number.parseInt(req.query.requests, 10) : Number.NaN;
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
function mountSwitches(router, parts) {
    router.get('/faults', (_req, res) => {
        res.json(parts.faults.current());
    });
    router.put('/faults', async (req, res) => {
        const { seed, ...settings } = parse(faultSettingsSchema, req.body);
        if (seed !== undefined)
            parts.faults.reseed(seed);
        await parts.faults.apply(settings);
        res.json(parts.faults.current());
    });
    router.put('/token', (req, res) => {
        parts.scimToken.set(parse(tokenSchema, req.body).token);
        res.status(204).end();
    });
}
/** `POST /seed`, `POST /clear`. */
function mountData(router, parts) {
    router.post('/seed', (req, res) => {
        const body = parse(seedSchema, req.body);
        res.json(seedTarget(parts.store, body.users, body.groups));
    });
    router.post('/clear', (_req, res) => {
        parts.store.clear();
        res.status(204).end();
    });
}
function requireToken(token) {
    return (req, res, next) => {
        if (token.accepts(req.get('authorization')))
            next();
        else
            sendError(res, 401, 'unauthorized', 'Missing or wrong bearer token');
    };
}
function parse(schema, body) {
    const result = schema.safeParse(body ?? {});
    if (result.success)
        return result.data;
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    throw new BridgeError('invalid_input', problems.join('; '), { status: 400, problems });
}
function sendError(res, status, code, message) {
    res.status(status).json({ error: { code, message } });
}
const controlErrorHandler = (error, _req, res, _next) => {
    const type = typeof error === 'object' && error !== null && 'type' in error ? error.type : undefined;
    if (isBridgeError(error))
        sendError(res, error.status ?? 400, error.code, error.detail ?? error.message);
    else if (type === 'entity.too.large')
        sendError(res, 413, 'payload_too_large', 'The request body is over the limit');
    else if (type !== undefined)
        sendError(res, 400, 'invalid_input', 'The request body is not valid JSON');
    else
        sendError(res, 500, 'internal', error instanceof Error ? error.message : 'Internal error');
};
//# sourceMappingURL=control-router.js.map
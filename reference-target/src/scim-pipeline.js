import { normaliseRoute } from './recorder.js';
import { sendScimFault } from './scim-errors.js';
export function scimPipeline(parts) {
    return async (req, res, next) => {
        const startedAt = Date.now();
        const route = normaliseRoute(req.path);
        const end = parts.recorder.begin();
        let settled = false;
        const settle = (status) => {
            if (settled)
                return;
            settled = true;
            end();
            const fault = res.locals.fault;
            const request = { method: req.method, route, status, startedAt, durationMs: Date.now() - startedAt };
            parts.recorder.record(fault === undefined ? request : { ...request, fault });
            parts.logger?.info({ ...request, fault }, 'reference target request');
        };
        res.on('finish', () => settle(res.statusCode));
        res.on('close', () => settle(res.writableFinished ? res.statusCode : 0));
        const decision = parts.faults.decide(req.method, startedAt);
        if (decision.delayMs > 0)
            await sleep(decision.delayMs);
        if (res.destroyed)
            return;
        if (decision.action === 'reject') {
            res.locals.fault = decision.fault;
            sendScimFault(res, decision.status, decision.detail, decision.retryAfterSeconds);
            return;
        }
        if (!parts.token.accepts(req.get('authorization'))) {
            res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
            sendScimFault(res, 401, 'Missing or wrong bearer token');
            return;
        }
        res.locals.loseResponse = decision.loseResponse;
        next();
    };
}
function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}
//# sourceMappingURL=scim-pipeline.js.map
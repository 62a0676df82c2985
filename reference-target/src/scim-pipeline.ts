import type { RequestHandler } from 'express';
import type { BearerToken } from './bearer-auth.js';
import type { FaultPlan } from './faults.js';
import { normaliseRoute, type Recorder } from './recorder.js';
import type { RequestLogger } from './request-log.js';
import { sendScimFault } from './target-errors.js';

/**
 * What every SCIM request goes through before its handler: it is recorded, the fault plan decides
 * its fate at arrival, it waits the scripted latency, and then it is rejected (fault), refused
 * (401) or passed on. Authentication comes after the faults, as at an edge proxy that rate-limits
 * before the application sees the request.
 */

export interface PipelineParts {
  recorder: Recorder;
  faults: FaultPlan;
  token: BearerToken;
  logger?: RequestLogger;
}

export function scimPipeline(parts: PipelineParts): RequestHandler {
  return async (req, res, next) => {
    const startedAt = Date.now();
    const route = normaliseRoute(req.path);
    const end = parts.recorder.begin();
    let settled = false;
    const settle = (status: number): void => {
      if (settled) return;
      settled = true;
      end();
      const fault = res.locals.fault as RecordedFault;
      const request = { method: req.method, route, status, startedAt, durationMs: Date.now() - startedAt };
      parts.recorder.record(fault === undefined ? request : { ...request, fault });
      parts.logger?.info({ ...request, fault }, 'reference target request');
    };
    res.on('finish', () => settle(res.statusCode));
    res.on('close', () => settle(res.writableFinished ? res.statusCode : 0));

    const decision = parts.faults.decide(req.method, startedAt);
    if (decision.delayMs > 0) await sleep(decision.delayMs);
    if (res.destroyed) return;
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

type RecordedFault = Parameters<Recorder['record']>[0]['fault'];

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

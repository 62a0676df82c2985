import { Router } from 'express';
import { redactText } from '../ops/redact.js';
import type { RedisClient } from '../store/redis-connection.js';
import { pingRedis } from '../store/redis-connection.js';

export interface PlatformHealthReport {
  state: 'reachable' | 'rate-limited' | 'auth-failed' | 'unavailable' | 'unknown';
  since?: string;
  detail?: string;
}

export interface HealthDeps {
  redis: RedisClient;
  /** What the workers last learnt about the target; absent until the engine reports. */
  platformHealth?: () => Promise<PlatformHealthReport>;
}

/**
 * /healthz: the process is alive. /readyz: Redis answers within a second (503 otherwise); the body
 * also says how the target is doing, which does not change the status (SPEC §4).
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await pingRedis(deps.redis, 1000);
    } catch (error) {
      const reason = error instanceof Error ? redactText(error.message) : 'unreachable';
      res.status(503).json({ status: 'unavailable', redis: { state: 'unreachable', reason } });
      return;
    }
    const target = deps.platformHealth
      ? await deps.platformHealth().then(publicReport, () => ({ state: 'unknown' as const }))
      : undefined;
    res.json({ status: 'ready', redis: { state: 'reachable' }, ...(target ? { target } : {}) });
  });
  return router;
}

/**
 * What /readyz, which needs no credentials, shows of the target's health: the platform's error
 * text redacted as /admin/status shows it, and `since` only when a change was recorded (the
 * store answers the epoch before anything happened).
 */
function publicReport(report: PlatformHealthReport): PlatformHealthReport {
  const since = report.since === undefined ? NaN : Date.parse(report.since);
  return {
    state: report.state,
    ...(Number.isFinite(since) && since > 0 ? { since: report.since } : {}),
    ...(report.detail ? { detail: redactText(report.detail) } : {}),
  };
}

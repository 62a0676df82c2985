import { Router } from 'express';
import type { RedisClient } from '../store/redis-connection.js';
import { pingRedis } from '../store/redis-connection.js';

export interface TargetHealthReport {
  state: 'reachable' | 'rate-limited' | 'auth-failed' | 'unavailable' | 'unknown';
  since?: string;
  detail?: string;
}

export interface HealthDeps {
  redis: RedisClient;
  /** What the workers last learnt about the target; absent until the engine reports. */
  targetHealth?: () => Promise<TargetHealthReport>;
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
      const reason = error instanceof Error ? error.message : 'unreachable';
      res.status(503).json({ status: 'unavailable', redis: { state: 'unreachable', reason } });
      return;
    }
    const target = deps.targetHealth
      ? await deps.targetHealth().catch(() => ({ state: 'unknown' as const }))
      : undefined;
    res.json({ status: 'ready', redis: { state: 'reachable' }, ...(target ? { target } : {}) });
  });
  return router;
}

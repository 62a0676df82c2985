import { Router } from 'express';
import type { Metrics } from '../ops/metrics.js';
import { bearerAuth } from './auth.js';

export function metricsRouter(metrics: Metrics, token: string, refresh?: () => Promise<void>): Router {
  const router = Router();
  if (token !== '') router.use('/metrics', bearerAuth({ token: () => token, realm: 'metrics' }));
  router.get('/metrics', async (_req, res, next) => {
    try {
      await refresh?.();
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.send(await metrics.registry.metrics());
    } catch (error) {
      next(error);
    }
  });
  return router;
}

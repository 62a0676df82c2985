import express, { type Express, type Router } from 'express';
import type { Config } from './config/schema.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { healthRouter, type TargetHealthReport } from './http/health.router.js';
import { metricsRouter } from './http/metrics.router.js';
import { requestLogging } from './http/request-logging.js';
import type { Logger } from './ops/logger.js';
import type { Metrics } from './ops/metrics.js';
import type { RedisClient } from './store/redis-connection.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** A producer connection: fails fast when Redis is down so routes answer 503. */
  redis: RedisClient;
  targetHealth?: () => Promise<TargetHealthReport>;
  /** Refreshes gauges read from Redis (queue depths) before /metrics answers. */
  refreshMetrics?: () => Promise<void>;
  /** Feature routers (SCIM, webhooks, admin), each mounted at its path. */
  routes?: readonly { path: string; router: Router }[];
}

/** The whole HTTP surface as an express app, without listen(): what tests drive with supertest. */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogging(deps.logger, deps.metrics));
  app.use(healthRouter({ redis: deps.redis, targetHealth: deps.targetHealth }));
  app.use(metricsRouter(deps.metrics, deps.config.inbound.metricsToken, deps.refreshMetrics));
  for (const { path, router } of deps.routes ?? []) app.use(path, router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

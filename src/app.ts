import express, { type Express, type Router } from 'express';
import type { Config } from './config/schema.js';
import { utf8Only } from './http/body.js';
import { errorHandler, notFoundHandler } from './http/error-responses.js';
import { healthRouter, type PlatformHealthReport } from './http/health.router.js';
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
  platformHealth?: () => Promise<PlatformHealthReport>;
  /** Refreshes gauges read from Redis (queue depths) before /metrics answers. */
  refreshMetrics?: () => Promise<void>;
  /** Feature routers (SCIM, webhooks, admin), each mounted at its path. */
  routes?: readonly { path: string; router: Router }[];
}

/** The whole HTTP surface as an express app, without listen(): what tests drive with supertest. */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // TRUST_PROXY: whom to believe about X-Forwarded-* (req.secure, req.protocol, req.ip).
  const trustProxy = deps.config.http.trustProxy;
  app.set('trust proxy', Array.isArray(trustProxy) ? [...trustProxy] : trustProxy);
  app.use(requestLogging(deps.logger, deps.metrics));
  // Every body is UTF-8 (415 otherwise); /scim/v2 checks it itself, to answer with a SCIM Error.
  app.use((req, res, next) => (req.path.startsWith('/scim/v2') ? next() : utf8Only(req, res, next)));
  app.use(healthRouter({ redis: deps.redis, platformHealth: deps.platformHealth }));
  app.use(metricsRouter(deps.metrics, deps.config.inbound.metricsToken, deps.refreshMetrics));
  for (const { path, router } of deps.routes ?? []) app.use(path, router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

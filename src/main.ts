import { loadConfig } from './config/load-config.js';
import { configError, isBridgeError } from './domain/errors.js';
import { secretValues } from './config/mask-config.js';
import type { Config } from './config/schema.js';
import { buildApp } from './app.js';
import { CATALOG, createInputs, inputSettingProblems } from './sources/registry.js';
import type { Inputs } from './domain/input.js';
import { scimDisabledRouter, scimRouter } from './sources/scim/scim-router.js';
import { webhookRoutes } from './sources/webhook-routes.js';
import { listen, type HttpServer } from './http/server.js';
import { createLogger, SecretRegistry, type Logger } from './ops/logger.js';
import { createMetrics, type Metrics } from './ops/metrics.js';
import { exitOnSignals, keepServingOnUnhandledRejections } from './ops/shutdown.js';
import { adminRoutes } from './admin/admin-routes.js';
import { adminDeps } from './wiring/admin-deps.js';
import { liveSecrets, secretFilesFrom, type LiveSecrets, type SecretFiles } from './wiring/live-secrets.js';
import { inputPulls } from './wiring/input-pulls.js';
import { metricsRefresher } from './wiring/metrics-refresh.js';
import { platformReader, type PlatformReader } from './wiring/platform-reader.js';
import { createStoreSide, type StoreSide } from './wiring/store-side.js';
import { startWorkerSide, type WorkerSide } from './wiring/worker-side.js';

/**
 * The only module that reads the environment and wires the parts together. A bridge runs the HTTP
 * surface (`serve`), the workers (`worker`) or both (`all`).
 */

export type Role = 'all' | 'serve' | 'worker';

export interface BridgeHandle {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The HTTP listener (every role serves /healthz, /readyz and /metrics). */
  readonly http: HttpServer;
  /** The HTTP side's view of the store (producer connection). */
  readonly store: StoreSide;
  /** Set when the role runs workers. */
  readonly workers?: WorkerSide;
  close(): Promise<void>;
}

export interface StartOptions {
  role: Role;
  logger?: Logger;
  /** Overrides PORT, e.g. 0 in tests. */
  port?: number;
  /** The `*_FILE` secrets, re-read when they change, so a rotated secret applies without a restart. */
  secretFiles?: SecretFiles;
  /** What the logs scrub; a secret re-read from its file joins it. With `logger`, pass the logger's. */
  scrubbed?: SecretRegistry;
}

export function loggerFor(
  config: Config,
  scrubbed = new SecretRegistry(secretValues(config, CATALOG)),
): Logger {
  return createLogger({ level: config.log.level, pretty: config.log.pretty, secrets: scrubbed });
}

export async function startBridge(config: Config, options: StartOptions): Promise<BridgeHandle> {
  const scrubbed = options.scrubbed ?? new SecretRegistry(secretValues(config, CATALOG));
  const logger = options.logger ?? loggerFor(config, scrubbed);
  const metrics = createMetrics();
  const secrets = liveSecrets(config, options.secretFiles, logger, scrubbed);
  const inputs = createInputs(config, { secrets, logger, metrics });
  const store = await createStoreSide(config, 'producer', logger, inputs);
  const targetToken = secrets.targetToken;
  const workers =
    options.role === 'serve'
      ? undefined
      : await startWorkerSide(config, metrics, logger, { inputs, targetToken, secret: secrets.section });
  // The admin API's platform reads (the dashboard's platform copy), on the HTTP side's own client.
  const platform = platformReader(config, store, metrics, logger, targetToken);
  const app = buildApp({
    config,
    logger,
    metrics,
    redis: store.redis,
    platformHealth: () => store.health.read(),
    refreshMetrics: metricsRefresher(
      metrics,
      store,
      inputPulls(inputs).map((pull) => pull.owner),
    ),
    routes: options.role === 'worker' ? [] : featureRoutes(config, store, secrets, platform, inputs),
  });
  const http = await listen(app, options.port ?? config.http.port, config.http.host);
  logger.info({ role: options.role, url: http.url }, 'listening');
  return {
    config,
    logger,
    metrics,
    http,
    store,
    workers,
    close: async () => {
      await http.close((config.http.shutdownTimeoutSeconds * 1000) / 2);
      await workers?.close();
      await platform.close();
      await store.close();
      await inputs.close();
    },
  };
}

/** The routes of the HTTP roles: SCIM push (when INBOUND_SCIM_TOKEN is set), webhooks, admin. */
function featureRoutes(
  config: Config,
  store: StoreSide,
  secrets: LiveSecrets,
  platform: PlatformReader,
  inputs: Inputs,
) {
  const scim =
    config.inbound.scimToken === ''
      ? scimDisabledRouter()
      : scimRouter({
          token: secrets.scimToken,
          api: store.api,
          queries: store.scimQueries,
          now: () => store.clock.now(),
          bodyLimitBytes: config.http.bodyLimitBytes,
          ...(config.http.publicUrl === '' ? {} : { baseUrl: `${config.http.publicUrl}/scim/v2` }),
        });
  return [
    { path: '/scim/v2', router: scim },
    ...adminRoutes(adminDeps(config, store, secrets.adminToken, platform, inputs)),
    ...webhookRoutes({ config, api: store.api, oktaProducer: store.oktaEvents, secrets }),
  ];
}

/** Loads the configuration from the environment; throws `config_invalid` listing every problem. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const config = loadConfig(env, CATALOG);
  const problems = inputSettingProblems(config);
  if (problems.length > 0) throw configError(problems);
  return config;
}

/** Loads the configuration from the environment, or prints one line per problem and exits 1. */
export function configFromEnvOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return configFromEnv(env);
  } catch (error) {
    if (isBridgeError(error, 'config_invalid')) {
      process.stderr.write(
        `scim-bridge: invalid configuration\n${error.problems.map((p) => `  ${p}`).join('\n')}\n`,
      );
      process.exit(1);
    }
    throw error;
  }
}

/** `scim-bridge all|serve|worker`: starts the role and stops gracefully on SIGTERM/SIGINT. */
export async function runRole(role: Role): Promise<void> {
  const config = configFromEnvOrExit();
  const bridge = await startBridge(config, {
    role,
    secretFiles: secretFilesFrom(process.env),
  });
  keepServingOnUnhandledRejections(bridge.logger);
  exitOnSignals(bridge.logger, config.http.shutdownTimeoutSeconds * 1000, () => bridge.close());
}

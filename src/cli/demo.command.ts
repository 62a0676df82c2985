import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { syncView } from '../admin/sync.router.js';
import { secretValues } from '../config/mask-config.js';
import { buildDirectorySource, CATALOG } from '../sources/registry.js';
import type { Config } from '../config/schema.js';
import { configFromEnv, loggerFor, startBridge, type BridgeHandle } from '../main.js';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '../ops/embedded-redis.js';
import { SecretRegistry } from '../ops/logger.js';
import { exitOnSignals, keepServingOnUnhandledRejections } from '../ops/shutdown.js';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { formatHandover } from './demo-handover.js';
import { loadDemoTokens, type DemoTokens } from './demo-tokens.js';
import { formatSyncResult, watchSync, type SyncView } from './sync-summary-lines.js';

const DEMO_DIRECTORY = fileURLToPath(new URL('../../config/demo-directory.json', import.meta.url));

/** A user of config/demo-directory.json (u-0002), named by the printed `explain` example. */
export const EXAMPLE_USER = 'jose.nunez@example.com';

/** What the demo started, stopped in reverse on Ctrl-C or when the start fails. */
interface DemoParts {
  target?: ReferenceTarget;
  redis?: EmbeddedRedis;
  bridge?: BridgeHandle;
}

/**
 * `npm run demo`: with nothing configured, an embedded Redis, the reference target, the demo
 * directory (about 1,000 users and 50 groups), a full reconciliation with a progress bar and a
 * summary; then it hands over the keys and serves until Ctrl-C. What is configured (REDIS_URL,
 * TARGET_URL, HOST, …) is used. It listens on 127.0.0.1 unless HOST says otherwise, as the tokens it
 * prints open everything. A failed start (a port in use) leaves nothing behind: no Redis process,
 * no temporary folder.
 */
export async function demoCommand(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { tokens, path: tokensFile } = loadDemoTokens(process.cwd());
  const parts: DemoParts = {};
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopParts(parts));
  try {
    const bridge = await startParts(parts, env, tokens, stop);
    await reconcileAndHandOver(bridge, parts, tokensFile);
  } catch (error) {
    const interrupted = stopping !== undefined;
    await stop();
    // Ctrl-C during the start or the first sync: exitOnSignals ends the process once all is stopped.
    if (!interrupted) throw error;
  }
}

async function reconcileAndHandOver(bridge: BridgeHandle, parts: DemoParts, tokensFile: string) {
  const { config, http } = bridge;
  const label = buildDirectorySource(config.directory)?.label;
  process.stdout.write(`\nscim-bridge demo: reconciling ${label ?? 'the desired state'}\n`);
  const view = await reconcile(bridge);
  process.stdout.write(`\n${formatSyncResult(view)}\n\n`);
  const isDemoDirectory = label?.endsWith(DEMO_DIRECTORY) === true;
  process.stdout.write(
    formatHandover({
      bridgeUrl: http.url,
      host: config.http.host,
      port: http.port,
      adminToken: config.inbound.adminToken,
      scimToken: config.inbound.scimToken,
      webhookSecret: config.inbound.webhookSecret,
      ...(parts.target ? { target: { scimUrl: parts.target.scimUrl, token: config.target.token } } : {}),
      tokensFile,
      exampleUser: isDemoDirectory ? EXAMPLE_USER : '<userName>',
    }),
  );
}

/**
 * Starts the reference target, checks the port, starts Redis and the bridge, recording each part
 * as it starts; Ctrl-C from the first moment stops what is there.
 */
async function startParts(
  parts: DemoParts,
  env: NodeJS.ProcessEnv,
  tokens: DemoTokens,
  stop: () => Promise<void>,
): Promise<BridgeHandle> {
  const targetToken = env.TARGET_TOKEN ?? tokens.TARGET_TOKEN;
  if (!env.TARGET_URL) parts.target = await startReferenceTarget({ token: targetToken, latencyMs: 2 });
  const redisPort = env.REDIS_URL ? undefined : await freePort();
  const config = configFromEnv({
    LOG_PRETTY: 'true',
    LOG_LEVEL: 'warn',
    SYNC_SCHEDULE: '',
    DIRECTORY_SOURCE: 'file',
    DIRECTORY_FILE: DEMO_DIRECTORY,
    HOST: '127.0.0.1',
    ADMIN_TOKEN: tokens.ADMIN_TOKEN,
    INBOUND_SCIM_TOKEN: tokens.INBOUND_SCIM_TOKEN,
    WEBHOOK_SECRET: tokens.WEBHOOK_SECRET,
    ...env,
    ...(redisPort === undefined ? {} : { REDIS_URL: `redis://127.0.0.1:${redisPort}` }),
    ...(parts.target ? { TARGET_URL: parts.target.url, TARGET_TOKEN: targetToken } : {}),
  });
  const scrubbed = new SecretRegistry(secretValues(config, CATALOG));
  const logger = loggerFor(config, scrubbed);
  exitOnSignals(logger, 10_000, stop);
  // Before Redis and the workers start: a port in use then fails with nothing to undo.
  await checkCanListen(config);
  if (redisPort !== undefined) parts.redis = await startEmbeddedRedis({ port: redisPort });
  parts.bridge = await startBridge(config, { role: 'all', logger, scrubbed });
  keepServingOnUnhandledRejections(logger);
  return parts.bridge;
}

/** Stops what started, the bridge before what it uses; throws the first failure once all were tried. */
async function stopParts(parts: DemoParts): Promise<void> {
  const steps = [() => parts.bridge?.close(), () => parts.target?.close(), () => parts.redis?.stop()];
  let failure: unknown;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Fails as the bridge's listen() would (EADDRINUSE, EACCES): the CLI's error line names PORT. */
async function checkCanListen(config: Config): Promise<void> {
  const { port, host } = config.http;
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

async function reconcile(bridge: BridgeHandle): Promise<SyncView> {
  const { jobId } = await bridge.store.syncs.start({ dryRun: false, trigger: 'demo' });
  return watchSync(async () => {
    const record = await bridge.store.syncs.get(jobId);
    if (!record) throw new Error(`sync ${jobId} vanished`);
    return syncView(record) as SyncView;
  });
}

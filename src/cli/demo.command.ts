import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load-config.js';
import { syncView } from '../admin/sync.router.js';
import { startBridge } from '../main.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../ops/embedded-redis.js';
import { exitOnSignals } from '../ops/shutdown.js';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { formatSyncResult, watchSync, type SyncView } from './sync-report.js';

const DEMO_DIRECTORY = fileURLToPath(new URL('../../config/demo-directory.json', import.meta.url));

/**
 * `npm run demo`: with nothing configured, an embedded Redis, the reference target, the demo
 * directory (about 1,000 users and 50 groups), a full reconciliation with a progress bar and a
 * summary, then it keeps serving until Ctrl-C. What is configured (REDIS_URL, TARGET_URL, …) is used.
 */
export async function demoCommand(): Promise<void> {
  const env = process.env;
  const redis: EmbeddedRedis | undefined = env.REDIS_URL ? undefined : await startEmbeddedRedis();
  const token = () => `demo-${randomBytes(12).toString('hex')}`;
  const targetToken = env.TARGET_TOKEN ?? token();
  const target: ReferenceTarget | undefined = env.TARGET_URL
    ? undefined
    : await startReferenceTarget({ token: targetToken, latencyMs: 2 });
  const demoEnv = {
    LOG_PRETTY: 'true',
    LOG_LEVEL: 'warn',
    SYNC_SCHEDULE: '',
    DIRECTORY_SOURCE: 'file',
    DIRECTORY_FILE: DEMO_DIRECTORY,
    ADMIN_TOKEN: token(),
    INBOUND_SCIM_TOKEN: token(),
    WEBHOOK_SECRET: token(),
    ...env,
    ...(redis ? { REDIS_URL: redis.url } : {}),
    ...(target ? { TARGET_URL: target.url, TARGET_TOKEN: targetToken } : {}),
  };
  const config = loadConfig(demoEnv);
  const bridge = await startBridge(config, { role: 'all' });
  exitOnSignals(bridge.logger, 10_000, async () => {
    await bridge.close();
    await target?.close();
    await redis?.stop();
  });

  process.stdout.write(`\nscim-bridge demo: reconciling ${DEMO_DIRECTORY}\n`);
  const { jobId } = await bridge.store.syncs.start({ dryRun: false, trigger: 'demo' });
  const view = await watchSync(async () => {
    const record = await bridge.store.syncs.get(jobId);
    if (!record) throw new Error(`sync ${jobId} vanished`);
    return syncView(record) as SyncView;
  });
  process.stdout.write(`\n${formatSyncResult(view)}\n\n`);
  const url = bridge.http.url;
  process.stdout.write(
    [
      `Admin UI:       ${url}/admin/ui   (token: ${config.inbound.adminToken})`,
      `Admin API:      ${url}/admin/status`,
      `SCIM endpoint:  ${url}/scim/v2    (bearer: ${config.inbound.scimToken})`,
      `Events:         ${url}/webhooks/events   (secret: ${config.inbound.webhookSecret})`,
      ...(target ? [`Reference target: ${target.scimUrl}`] : []),
      '',
      'Serving until Ctrl-C.',
      '',
    ].join('\n'),
  );
}

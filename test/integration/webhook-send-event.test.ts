import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { readEvents, sendEvents } from '../../src/cli/send-event.command.js';
import { listen, type HttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { webhookRoutes } from '../../src/sources/webhook-routes.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: Redis, the store, the express app listening on a free port, the CLI in a child process.
const SECRET = 'webhook-secret-for-tests-0002';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/events/directory-batch.json', import.meta.url));

describe('scim-bridge send-event', () => {
  let store: StoreSide;
  let http: HttpServer;
  const lines: string[] = [];

  beforeAll(async () => {
    const config = testConfig({ WEBHOOK_SECRET: SECRET });
    store = await createStoreSide(config, 'producer', silentLogger());
    const app = buildApp({
      config,
      logger: silentLogger(),
      metrics: createMetrics(),
      redis: store.redis,
      routes: webhookRoutes({ config, api: store.api, oktaProducer: { enqueue: async () => undefined } }),
    });
    http = await listen(app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await http.close(0);
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it('reads one event, a batch, an array or one event per line', () => {
    expect(readEvents('{"id":"a"}')).toEqual([{ id: 'a' }]);
    expect(readEvents('{"events":[{"id":"a"},{"id":"b"}]}')).toHaveLength(2);
    expect(readEvents('[{"id":"a"}]')).toEqual([{ id: 'a' }]);
    expect(readEvents('{"id":"a"}\n\n{"id":"b"}\n')).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(() => readEvents('{"id":"a"}\nnope')).toThrow(/line 2 is not JSON/);
  });

  it('signs and posts events in batches, and exits 1 when the bridge refuses them', async () => {
    const text = JSON.stringify({
      events: Array.from({ length: 5 }, (_, i) => ({
        id: `cli-${i}`,
        type: 'user.upserted',
        data: { id: `cli-user-${i}`, userName: `cli-${i}@example.com` },
      })),
    });
    const write = (line: string) => void lines.push(line);
    expect(await sendEvents(text, { url: http.url, secret: SECRET, batchSize: 2, write })).toBe(0);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`POST ${http.url}/webhooks/events (2 events): 202 {"accepted":2,"duplicates":0}`);
    expect(lines[2]).toMatch(/\(1 event\): 202 /);
    expect(await store.desired.getUser('cli-user-4')).toMatchObject({ userName: 'cli-4@example.com' });
    const refused = await sendEvents(text, {
      url: http.url,
      secret: 'wrong-secret-0000000001',
      batchSize: 1000,
      write,
    });
    expect(refused).toBe(1);
    expect(lines.at(-1)).toMatch(/: 401 .*"unauthorized"/);
    // A secret in rotation (old and new, one per line): signed with each, accepted by either side.
    const rotating = JSON.stringify({
      id: 'cli-rot',
      type: 'user.upserted',
      data: { id: 'cli-rot-user', userName: 'cli-rot@example.com' },
    });
    const both = `old-secret-not-configured-01\n${SECRET}`;
    expect(await sendEvents(rotating, { url: http.url, secret: both, batchSize: 1, write })).toBe(0);
    expect(lines.at(-1)).toMatch(/: 202 /);
  });

  it('runs as a command with the secret from the environment', async () => {
    const run = promisify(execFile);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/run.ts', 'send-event', FIXTURE, '--url', `${http.url}/webhooks/events`],
      { cwd: ROOT, env: { ...process.env, WEBHOOK_SECRET: SECRET } },
    );
    expect(stdout).toContain('(4 events): 202 {"accepted":4,"duplicates":0}');
    expect(await store.desired.getGroup('hr-g-eng')).toMatchObject({ members: ['hr-1001', 'hr-1002'] });
  });
});

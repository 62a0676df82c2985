import { availableParallelism, loadavg } from 'node:os';
import { DEFAULT_POLICY } from '../src/domain/identity-policy.js';
import { applyPushedChanges } from '../src/sync/pushed-changes.js';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { Pool } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load-config.js';
import { CATALOG } from '../src/sources/registry.js';
import { listen } from '../src/http/server.js';
import { startBridge, type Role } from '../src/main.js';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { silentLogger } from '../src/ops/logger.js';
import { createMetrics } from '../src/ops/metrics.js';
import { OktaEventProducer } from '../src/queue/okta-events.producer.js';
import { startOktaEventWorker } from '../src/queue/okta-events.worker.js';
import { oktaEventProcessor } from '../src/sources/okta/okta-event.processor.js';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { signatureHeader } from '../src/sources/events/signature.js';
import { webhookRoutes } from '../src/sources/webhook-routes.js';
import { table } from './support.js';

/**
 * Webhook acknowledgement figures (issue 6): generic events accepted per second in batches of 100
 * and as single events from 32 concurrent senders, with p50/p99 acknowledgement times; Okta
 * deliveries' p50/p99 while the reconcile workers work through that backlog, and while the
 * platform answers 503. The bridge (role all by default, BENCH_ROLE=serve for the HTTP side alone,
 * webhook routes mounted) and the reference target (10 ms latency) run in this process, the
 * senders in a worker thread of their own (so an ack time is what a sender sees), Redis as its own
 * server. Events are new users, so every one is a real write and a reconcile job.
 */
const TOKEN = 'bench-target-token-000000';
const SECRET = 'bench-webhook-secret-000000';
const OKTA_SECRET = 'bench-okta-hook-secret-0000';

interface PhaseRequest {
  url: string;
  path: '/webhooks/events' | '/webhooks/okta';
  kind: 'events' | 'okta';
  prefix: string;
  senders: number;
  requests: number;
  eventsPerRequest: number;
}

interface Phase {
  requests: number;
  events: number;
  seconds: number;
  latencies: number[];
  failures: number;
}

export default async function webhooksBench(): Promise<void> {
  const role = (process.env.BENCH_ROLE ?? 'all') as Role;
  const setup = await startSetup(role);
  // The worker loads this TypeScript file itself, through tsx's loader (registered in the thread).
  const entry = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const sender = new Worker(entry, { eval: true });
  try {
    await phases(role, setup, (phase) => runPhase(sender, { url: setup.url, ...phase }));
  } finally {
    await sender.terminate();
    await setup.close();
  }
}

interface Setup {
  url: string;
  target: ReferenceTarget;
  reconcileBacklog(): Promise<number>;
  close(): Promise<void>;
}

/** Redis, the reference target at 10 ms, a bridge of the role given, and the webhook routes. */
async function startSetup(role: Role): Promise<Setup> {
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({ token: TOKEN, latencyMs: 10 });
  const config = loadConfig(
    {
      REDIS_URL: redis.url,
      KEY_PREFIX: '{bench-webhooks}',
      TARGET_URL: target.url,
      TARGET_TOKEN: TOKEN,
      WEBHOOK_SECRET: SECRET,
      OKTA_HOOK_SECRET: OKTA_SECRET,
      SYNC_SCHEDULE: '',
      LOG_LEVEL: 'silent',
    },
    CATALOG,
  );
  const bridge = await startBridge(config, { role, port: 0, logger: silentLogger() });
  const { store, workers } = bridge;
  const queuePrefix = store.keys.queuePrefix();
  const producer = new OktaEventProducer(store.redis, { queuePrefix });
  const oktaWorker =
    workers &&
    startOktaEventWorker(
      workers.store.redis,
      {
        process: oktaEventProcessor({
          apply: (changes) => applyPushedChanges(workers.store.api, 'okta', DEFAULT_POLICY, changes),
          readUser: (id) => workers.store.desired.getUser(id),
          logger: silentLogger(),
        }),
        logger: silentLogger(),
      },
      { queuePrefix },
    );
  const routes = webhookRoutes({ config, api: store.api, oktaProducer: producer });
  const app = buildApp({
    config,
    logger: silentLogger(),
    metrics: createMetrics(),
    redis: store.redis,
    routes,
  });
  const http = await listen(app, 0, '127.0.0.1');
  return {
    url: http.url,
    target,
    reconcileBacklog: async () => {
      const counts = await store.producer.queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
      return Object.values(counts).reduce((a, b) => a + b, 0);
    },
    close: async () => {
      await http.close(1000);
      await oktaWorker?.close();
      await producer.close();
      await bridge.close();
      await target.close();
      await redis.stop();
    },
  };
}

async function phases(role: Role, setup: Setup, run: (phase: Omit<PhaseRequest, 'url'>) => Promise<Phase>) {
  const batches = Number(process.env.BENCH_BATCHES ?? 300);
  const singles = Number(process.env.BENCH_SINGLES ?? 10_000);
  const deliveries = Number(process.env.BENCH_OKTA ?? 1_000);
  const events = { path: '/webhooks/events', kind: 'events' } as const;
  const okta = {
    path: '/webhooks/okta',
    kind: 'okta',
    senders: 8,
    requests: deliveries,
    eventsPerRequest: 10,
  } as const;
  await run({ ...events, prefix: 'warm', senders: 8, requests: 300, eventsPerRequest: 1 });
  const batched = await run({ ...events, prefix: 'b', senders: 8, requests: batches, eventsPerRequest: 100 });
  const single = await run({ ...events, prefix: 's', senders: 32, requests: singles, eventsPerRequest: 1 });
  const queued = await setup.reconcileBacklog();
  const oktaBusy = await run({ ...okta, prefix: 'busy' });
  await setup.target.faults.setOutage('503');
  const oktaDown = await run({ ...okta, prefix: 'down' });
  await setup.target.faults.reset();
  report(role, { batched, single, oktaBusy, oktaDown }, queued);
}

function runPhase(sender: Worker, request: PhaseRequest): Promise<Phase> {
  return new Promise((resolve, reject) => {
    sender.once('message', (phase: Phase) => {
      sender.off('error', reject);
      resolve(phase);
    });
    sender.once('error', reject);
    sender.postMessage(request);
  });
}

/** The senders (worker thread): `senders` concurrent loops over one keep-alive pool. */
async function send(request: PhaseRequest): Promise<Phase> {
  const pool = new Pool(request.url, { connections: request.senders, pipelining: 1 });
  const phase: Phase = { requests: request.requests, events: 0, seconds: 0, latencies: [], failures: 0 };
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    for (let i = next++; i < request.requests; i = next++) {
      const prefix = `${request.prefix}-${i}`;
      const body =
        request.kind === 'okta'
          ? oktaBody(prefix, request.eventsPerRequest)
          : eventsBody(prefix, request.eventsPerRequest);
      const auth =
        request.kind === 'okta'
          ? { authorization: OKTA_SECRET }
          : { 'x-bridge-signature': signatureHeader(SECRET, body, Math.floor(Date.now() / 1000)) };
      const sent = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: request.path,
        headers: { 'content-type': 'application/json', ...auth },
        body,
      });
      await response.body.text();
      phase.latencies.push(performance.now() - sent);
      if (response.statusCode >= 300) phase.failures++;
      else phase.events += request.eventsPerRequest;
    }
  };
  await Promise.all(Array.from({ length: request.senders }, loop));
  phase.seconds = (performance.now() - started) / 1000;
  await pool.close();
  return phase;
}

function eventsBody(prefix: string, n: number): string {
  const list = Array.from({ length: n }, (_, k) => ({
    id: `${prefix}-${k}`,
    type: 'user.upserted',
    data: {
      id: `${prefix}-${k}`,
      userName: `${prefix}-${k}@bench.example`,
      name: { givenName: 'Bench', familyName: `${prefix}-${k}` },
      emails: [{ value: `${prefix}-${k}@bench.example`, primary: true }],
    },
  }));
  return JSON.stringify(n === 1 ? list[0] : { events: list });
}

function oktaBody(prefix: string, n: number): string {
  const events = Array.from({ length: n }, (_, k) => ({
    uuid: `${prefix}-${k}`,
    published: new Date().toISOString(),
    eventType: k % 2 === 0 ? 'user.lifecycle.activate' : 'user.lifecycle.deactivate',
    version: '0',
    severity: 'INFO',
    displayMessage: 'Activate Okta user',
    outcome: { result: 'SUCCESS', reason: null },
    target: [
      {
        id: `00u${prefix}-${k}`,
        type: 'User',
        alternateId: `${prefix}-${k}@bench.example`,
        displayName: 'Okta Bench',
      },
    ],
  }));
  return JSON.stringify({ eventType: 'com.okta.event_hook', data: { events } });
}

function percentiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(1);
  return `${at(0.5)} ms / ${at(0.99)} ms`;
}

function report(
  role: Role,
  phases: Record<'batched' | 'single' | 'oktaBusy' | 'oktaDown', Phase>,
  queued: number,
): void {
  const rate = (phase: Phase) => `${Math.round(phase.events / phase.seconds).toLocaleString('en')} events/s`;
  const { batched, single, oktaBusy, oktaDown } = phases;
  const failures = Object.values(phases).reduce((n, p) => n + p.failures, 0);
  console.log(
    `role ${role}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  );
  console.log(
    table([
      [`batches of 100, 8 senders (${batched.requests} requests)`, rate(batched)],
      ['  ack p50 / p99', percentiles(batched.latencies)],
      [`single events, 32 senders (${single.requests} requests)`, rate(single)],
      ['  ack p50 / p99', percentiles(single.latencies)],
      ['reconcile jobs queued after them (10 ms target)', queued],
      [`okta deliveries of 10, reconcile busy (${oktaBusy.requests})`, rate(oktaBusy)],
      ['  ack p50 / p99', percentiles(oktaBusy.latencies)],
      [`okta deliveries of 10, platform 503 (${oktaDown.requests})`, rate(oktaDown)],
      ['  ack p50 / p99', percentiles(oktaDown.latencies)],
      ['failed requests', failures],
    ]),
  );
}

if (!isMainThread) {
  parentPort?.on('message', (request: PhaseRequest) => {
    void send(request).then((phase) => parentPort?.postMessage(phase));
  });
}

import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { startBridgeProcess, startTargetProcess, table } from './support.js';

/**
 * SCIM push figures (issue 5): POST /scim/v2/Users, then Entra-style PATCHes of those users, from
 * 32 concurrent clients: writes per second and p50/p99 answer times. The IdP never waits on the
 * target (10 ms latency), so the reconcile backlog left behind is printed too.
 * BENCH_SCIM_SECONDS (default 10) per phase.
 */
const TOKEN = 'bench-target-token-000000';
export const SCIM_TOKEN = 'bench-scim-inbound-token-0000';
const ADMIN_TOKEN = 'bench-admin-token-0000000000';
export const CLIENTS = Number(process.env.BENCH_SCIM_CLIENTS ?? 32);
export const SECONDS = Number(process.env.BENCH_SCIM_SECONDS ?? 10);

export interface Phase {
  writes: number;
  seconds: number;
  latencies: number[];
  failures: number;
}

/** A request template: `{i}` becomes the request's number, `{id}` a user id taken in turn. */
export interface Template {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body: string;
}

export interface Load {
  url: string;
  seconds: number;
  templates: readonly Template[];
  ids: readonly string[];
}

export const USER_TEMPLATE: Template = {
  method: 'POST',
  path: '/scim/v2/Users',
  body: JSON.stringify({
    schemas: [
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
    ],
    externalId: 'bench-ext-{i}',
    userName: 'bench.user.{i}@example.com',
    active: true,
    displayName: 'Bench User {i}',
    emails: [{ primary: true, type: 'work', value: 'bench.user.{i}@example.com' }],
    name: { formatted: 'Bench User {i}', familyName: 'User {i}', givenName: 'Bench' },
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Research' },
  }),
};

/** Entra-style PATCHes in turn: capitalised replaces of active (boolean strings) and of a name part. */
const PATCH_TEMPLATES: Template[] = [
  [{ op: 'Replace', path: 'active', value: 'False' }],
  [{ op: 'Replace', path: 'name.givenName', value: 'Patched {i}' }],
  [{ op: 'Replace', path: 'active', value: 'True' }],
  [{ op: 'Replace', path: 'name.givenName', value: 'Patched {i}' }],
].map((Operations) => ({
  method: 'PATCH',
  path: '/scim/v2/Users/{id}',
  body: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations }),
}));

/** The clients: each sends its next request when the previous one answered, until the time is up. */
const LOAD_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require('undici');
const { url, token, clients, seconds, templates, ids } = workerData;
const fill = (text, i) => text.replaceAll('{i}', String(i)).replaceAll('{id}', ids[i % Math.max(ids.length, 1)] ?? '');
const pool = new Pool(url, { connections: clients, pipelining: 1 });
const latencies = [];
let failures = 0;
let next = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
Promise.all(Array.from({ length: clients }, async () => {
  while (performance.now() < deadline) {
    const i = next++;
    const template = templates[i % templates.length];
    const sent = performance.now();
    const response = await pool.request({
      method: template.method,
      path: fill(template.path, i),
      body: template.body === '' ? undefined : fill(template.body, i),
      headers: { authorization: 'Bearer ' + token, 'content-type': 'application/scim+json' },
    });
    await response.body.text();
    latencies.push(performance.now() - sent);
    if (response.statusCode >= 300) failures += 1;
  }
})).then(async () => {
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  parentPort.postMessage({ writes: latencies.length, seconds: elapsed, latencies, failures });
});
`;

/** Runs the clients (CLIENTS of them, BENCH_SCIM_CLIENTS) for a phase and returns its figures. */
export async function drive(load: Load): Promise<Phase> {
  return driveInWorker(load);
}

async function driveInWorker(load: Load): Promise<Phase> {
  const worker = new Worker(LOAD_SCRIPT, {
    eval: true,
    workerData: { ...load, token: SCIM_TOKEN, clients: CLIENTS },
  });
  const [phase] = (await once(worker, 'message')) as [Phase];
  await worker.terminate();
  return phase;
}

function percentile(sorted: readonly number[], p: number): string {
  return `${(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(1)} ms`;
}

export function report(name: string, phase: Phase): [string, string | number][] {
  const sorted = [...phase.latencies].sort((a, b) => a - b);
  return [
    [`${name} writes/s`, Math.round(phase.writes / phase.seconds)],
    [`${name} p50`, percentile(sorted, 0.5)],
    [`${name} p99`, percentile(sorted, 0.99)],
    [`${name} requests (failed)`, `${phase.writes} (${phase.failures})`],
  ];
}

interface Stack {
  url: string;
  /** Peak RSS (MB) of the serving bridge. */
  servePeakRssMb(): number;
  targetUsers(): Promise<number>;
  queued(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Redis, the reference target at 10 ms in a process of its own, a bridge `serve` process taking the
 * SCIM requests and a `worker` process reconciling behind it — the deployment SPEC §2 describes for
 * scale. The clients run in a worker thread of this process.
 */
async function startStack(): Promise<Stack> {
  const redis = await startEmbeddedRedis();
  const target = await startTargetProcess(TOKEN, ['--latency', '10']);
  const env = {
    REDIS_URL: redis.url,
    KEY_PREFIX: '{bench-scim}',
    TARGET_URL: target.url,
    TARGET_TOKEN: TOKEN,
    INBOUND_SCIM_TOKEN: SCIM_TOKEN,
    ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
  };
  const serve = await startBridgeProcess(env, 'serve');
  const worker = await startBridgeProcess(env, 'worker');
  const client = new Redis(redis.url);
  return {
    url: serve.url,
    servePeakRssMb: () => serve.peakRssMb(),
    targetUsers: async () => (await target.stats()).byRoute['POST /Users'] ?? 0,
    queued: async () => {
      const keys = ['wait', 'active', 'delayed', 'prioritized'].map(
        (state) => `{bench-scim}:q:reconcile:${state}`,
      );
      const sizes = await Promise.all(
        keys.map((key, n) => (n === 0 || n === 1 ? client.llen(key) : client.zcard(key))),
      );
      return sizes.reduce((a, b) => a + b, 0);
    },
    stop: async () => {
      client.disconnect();
      await serve.stop();
      await worker.stop();
      await target.stop();
      await redis.stop();
    },
  };
}

export default async function scimPushBench(): Promise<void> {
  const stack = await startStack();
  try {
    // The ceiling of the machine at that moment: the app shell (logging, metrics) doing nothing.
    const health: Template = { method: 'GET', path: '/healthz', body: '' };
    const baseline = await drive({
      url: stack.url,
      seconds: Math.min(SECONDS, 3),
      templates: [health],
      ids: [],
    });
    const created = await drive({ url: stack.url, seconds: SECONDS, templates: [USER_TEMPLATE], ids: [] });
    const ids = await userIds(stack.url);
    const patched = await drive({ url: stack.url, seconds: SECONDS, templates: PATCH_TEMPLATES, ids });
    console.log(
      table([
        [
          'processes',
          `bridge serve + bridge worker + target (10 ms) + Redis; ${CLIENTS} clients in a worker thread`,
        ],
        ...report('GET /healthz (baseline)', baseline).slice(0, 3),
        ...report('POST /Users', created),
        ...report('PATCH /Users/{id}', patched),
        ['serving bridge peak RSS', `${stack.servePeakRssMb()} MB`],
        ['users created on the target so far', await stack.targetUsers()],
        ['reconcile jobs still queued', await stack.queued()],
      ]),
    );
  } finally {
    await stack.stop();
  }
}

/** The ids of the users created, read back through the SCIM server (paged). */
async function userIds(url: string): Promise<string[]> {
  const pool = new Pool(url, { connections: 1 });
  const ids: string[] = [];
  for (let start = 1; ; start += 1000) {
    const response = await pool.request({
      method: 'GET',
      path: `/scim/v2/Users?startIndex=${start}&count=1000&attributes=id`,
      headers: { authorization: `Bearer ${SCIM_TOKEN}` },
    });
    const page = (await response.body.json()) as { Resources?: { id: string }[] };
    const resources = page.Resources ?? [];
    ids.push(...resources.map((r) => r.id));
    if (resources.length < 1000) break;
  }
  await pool.close();
  return ids;
}

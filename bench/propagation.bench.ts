import { startReferenceTarget } from 'scim-reference-target';
import { Pool } from 'undici';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { adminCall, startBridgeProcess, table } from './support.js';

/**
 * IdP push → on the platform (issue 24): an IdP sends changes to the bridge's /scim/v2 at a steady
 * BENCH_PROPAGATION_RATE a second (default 50) for BENCH_PROPAGATION_SECONDS (default 10); the
 * reference target answers after 10 ms. For each change: the time from sending it to the bridge
 * until the platform holds it (the resource's `meta.created` / `meta.lastModified`, on the same
 * clock: the target runs in this process). Two loads: creates of new users (the bridge looks the
 * user up before it creates it), and updates of users the platform holds (a PATCH of the name).
 * Then where the time went, from each user's history (GET /admin/identities): until the change
 * was stored, from stored to the first platform request (wake-up, feeder, queue, worker, reads),
 * the platform reads before the write (look-ups, or the GET of an update), and from the write's
 * request until the platform held it.
 */
const TOKEN = 'bench-target-token-000000';
const SCIM = 'bench-scim-inbound-token-0000';
const ADMIN = 'bench-admin-token-000000';
const LATENCY_MS = 10;

export default async function propagationBench(): Promise<void> {
  const rate = Number(process.env.BENCH_PROPAGATION_RATE ?? '50');
  const seconds = Number(process.env.BENCH_PROPAGATION_SECONDS ?? '10');
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({ token: TOKEN, pageCap: 100, maxRecordedRequests: 0 });
  target.faults.setLatency({ ms: LATENCY_MS });
  const bridge = await startBridgeProcess({
    REDIS_URL: redis.url,
    TARGET_URL: target.url,
    TARGET_TOKEN: TOKEN,
    INBOUND_SCIM_TOKEN: SCIM,
    ADMIN_TOKEN: ADMIN,
  });
  const pool = new Pool(bridge.url, { connections: 8 });
  try {
    await warmUp(pool, target);
    const creates = await run(pool, rate, seconds, (i) => ({
      userName: `prop-${i}@bench.example`,
      create: true,
    }));
    const created = await arrivals(target, creates, 'created');
    const createdStages = await stages(bridge.url, creates, created);
    const updates = await run(pool, rate, seconds, (i) => ({
      userName: `prop-${i}@bench.example`,
      create: false,
    }));
    const updated = await arrivals(target, updates, 'lastModified');
    const updatedStages = await stages(bridge.url, updates, updated);
    console.log(
      table([
        ['load', `${rate} changes/s for ${seconds} s each, platform latency ${LATENCY_MS} ms`],
        row('creates (2 look-ups + POST: floor 20 ms)', latencies(creates, created), creates.size),
        ...stageRows('creates', createdStages),
        row('updates (GET + PATCH: floor 20 ms)', latencies(updates, updated), updates.size),
        ...stageRows('updates', updatedStages),
      ]),
    );
  } finally {
    await pool.close();
    await bridge.stop();
    await target.close();
    await redis.stop();
  }
}

interface Change {
  userName: string;
  create: boolean;
}

/** Sends `rate` changes a second for `seconds`; returns when each was sent, by userName. */
async function run(pool: Pool, rate: number, seconds: number, change: (i: number) => Change) {
  const sent = new Map<string, number>();
  const ids = new Map<string, string>();
  const started = now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const wait = started + (i * 1000) / rate - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const c = change(i);
    sent.set(c.userName, now());
    pending.push(
      c.create
        ? create(pool, c.userName).then((id) => void ids.set(c.userName, id))
        : update(pool, c.userName, i),
    );
  }
  await Promise.all(pending);
  return sent;
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

function row(label: string, values: number[], total: number): [string, string] {
  return [label, `${values.length} of ${total} arrived; ${percentiles(values)}`];
}

function percentiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    `${(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN).toFixed(1)} ms`;
  return `p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)}`;
}

/** Sent → on the platform, for each change that arrived. */
function latencies(sent: Map<string, number>, arrived: Map<string, number>): number[] {
  return [...arrived].map(([userName, at]) => at - (sent.get(userName) ?? NaN));
}

/** Where a change's time went, from its user's history (ms; times to the millisecond). */
interface Stages {
  stored: number[];
  toFirstRequest: number[];
  reads: number[];
  write: number[];
}

interface HistoryLine {
  at: string | null;
  type: string;
}

async function stages(url: string, sent: Map<string, number>, arrived: Map<string, number>): Promise<Stages> {
  const out: Stages = { stored: [], toFirstRequest: [], reads: [], write: [] };
  for (const [userName, at] of arrived) {
    const sentAt = sent.get(userName) ?? NaN;
    // History times are whole milliseconds: an entry of the millisecond the change was sent counts.
    const since = Math.floor(sentAt);
    const path = `/admin/identities/users/${encodeURIComponent(userName)}`;
    const { history } = await adminCall<{ history: HistoryLine[] }>(url, ADMIN, 'GET', path);
    const times = (type: string) =>
      history
        .filter((entry) => entry.type === type && entry.at !== null)
        .map((entry) => Date.parse(entry.at ?? ''))
        .filter((time) => time >= since)
        .sort((a, b) => a - b);
    const [stored] = times('signal');
    const requests = times('request').filter((time) => stored !== undefined && time >= stored);
    const first = requests[0];
    const last = requests.at(-1);
    if (stored === undefined || first === undefined || last === undefined) continue;
    out.stored.push(stored - sentAt);
    out.toFirstRequest.push(first - stored);
    out.reads.push(last - first);
    out.write.push(at - last);
  }
  return out;
}

function stageRows(load: string, s: Stages): [string, string][] {
  return [
    [`  ${load}: until stored`, percentiles(s.stored)],
    [`  ${load}: stored → first platform request`, percentiles(s.toFirstRequest)],
    [`  ${load}: platform reads before the write`, percentiles(s.reads)],
    [`  ${load}: write sent → on the platform`, percentiles(s.write)],
  ];
}

const userIds = new Map<string, string>();

async function update(pool: Pool, userName: string, i: number): Promise<void> {
  const id = userIds.get(userName);
  const body = JSON.stringify({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', path: 'name.givenName', value: `Changed ${i}` }],
  });
  const res = await pool.request({
    method: 'PATCH',
    path: `/scim/v2/Users/${id}`,
    headers: { authorization: `Bearer ${SCIM}`, 'content-type': 'application/scim+json' },
    body,
  });
  await res.body.text();
}

async function create(pool: Pool, userName: string): Promise<string> {
  const body = JSON.stringify({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName,
    active: true,
  });
  const res = await pool.request({
    method: 'POST',
    path: '/scim/v2/Users',
    headers: { authorization: `Bearer ${SCIM}`, 'content-type': 'application/scim+json' },
    body,
  });
  const { id } = (await res.body.json()) as { id: string };
  userIds.set(userName, id);
  return id;
}

/** A few creates first, so that connections, scripts and the platform's settings are warm. */
async function warmUp(pool: Pool, target: Awaited<ReturnType<typeof startReferenceTarget>>): Promise<void> {
  for (let i = 0; i < 20; i++) await create(pool, `warm-${i}@bench.example`);
  while (target.users().length < 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** When each change reached the platform (by userName), once every one arrived (or 30 s passed). */
async function arrivals(
  target: Awaited<ReturnType<typeof startReferenceTarget>>,
  sent: Map<string, number>,
  stamp: 'created' | 'lastModified',
): Promise<Map<string, number>> {
  const deadline = Date.now() + 30_000;
  const arrived = (u: { name?: { givenName?: string } }) =>
    stamp === 'created' || u.name?.givenName?.startsWith('Changed') === true;
  for (;;) {
    const found = target.users().filter((u) => sent.has(u.userName) && arrived(u));
    if (found.length === sent.size || Date.now() > deadline)
      return new Map(found.map((u) => [u.userName, Date.parse(u.meta[stamp])]));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceTarget } from 'scim-reference-target';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { writeDirectory } from './directory.js';
import { CpuMeter, redisPid, runSync, startBridgeProcess, table, type BridgeChild } from './support.js';

/**
 * Apply spread over worker processes (issue 15): initial provisioning of BENCH_SCALE_USERS (20,000)
 * users from a file source into an empty reference target answering at once (BENCH_SCALE_LATENCY_MS,
 * default 0: the platform is not the bottleneck), by a `serve` process and 1, then 2, `worker`
 * processes (TARGET_CONCURRENCY=8 each): creates per second and the peak RSS of every bridge
 * process. Then the same with TARGET_MAX_RPS (BENCH_MAX_RPS, default 200) across 2 workers: the
 * rate the target saw, over the whole run and in its busiest second, against the cap.
 */
const TOKEN = 'bench-target-token-000000';
const ADMIN = 'bench-admin-token-000000';

export default async function scaleOutBench(): Promise<void> {
  const users = Number(process.env.BENCH_SCALE_USERS ?? 20_000);
  const latencyMs = Number(process.env.BENCH_SCALE_LATENCY_MS ?? 0);
  const maxRps = Number(process.env.BENCH_MAX_RPS ?? 200);
  console.log(
    `\ninitial provisioning of ${users} users, target latency ${latencyMs} ms, TARGET_CONCURRENCY=8`,
  );
  const one = await provision({ users, workers: 1, latencyMs });
  const two = await provision({ users, workers: 2, latencyMs });
  console.log(`  2 workers / 1 worker: ${(two.rate / one.rate).toFixed(2)}×`);
  const capped = Math.min(users, maxRps * 30);
  console.log(`\nTARGET_MAX_RPS=${maxRps}, 2 workers, ${capped} users`);
  await provision({ users: capped, workers: 2, latencyMs, maxRps });
}

interface Provisioning {
  users: number;
  workers: number;
  latencyMs: number;
  maxRps?: number;
}

async function provision(options: Provisioning): Promise<{ rate: number }> {
  const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({
    token: TOKEN,
    pageCap: 100,
    latencyMs: options.latencyMs,
    maxRecordedRequests: options.users + 1000,
  });
  const file = join(work, 'directory.json');
  await writeDirectory(file, options.users, 0);
  const env = {
    REDIS_URL: redis.url,
    TARGET_URL: target.url,
    TARGET_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    TARGET_CONCURRENCY: '8',
    TARGET_MAX_RPS: String(options.maxRps ?? 0),
    DIRECTORY_SOURCE: 'file',
    DIRECTORY_FILE: file,
  };
  const processes: BridgeChild[] = [];
  try {
    const serve = await startBridgeProcess(env, 'serve');
    processes.push(serve);
    for (let n = 0; n < options.workers; n++) processes.push(await startBridgeProcess(env, 'worker'));
    const meter = new CpuMeter([
      ...processes.map((p, n) => ({ name: n === 0 ? 'serve' : `worker ${n}`, pid: p.child.pid ?? 0 })),
      { name: 'Redis', pid: await redisPid(redis.url) },
      { name: 'target (bench process)', pid: process.pid },
    ]);
    const result = await runSync(serve.url, ADMIN);
    const busy = meter.report();
    const creates = target.stats().requests.filter((r) => r.method === 'POST');
    const seconds = (result.summary.phasesMs?.users ?? result.summary.durationMs) / 1000;
    const rate = creates.length / seconds;
    const rows: [string, string | number][] = [
      ['state', result.state],
      ['creates', creates.length],
      ['users phase', `${seconds.toFixed(1)} s`],
      ['creates per second', Math.round(rate)],
      ['peak RSS (serve, workers…)', processes.map((p) => `${p.peakRssMb()} MB`).join(', ')],
      ['CPU during the sync (% of one core)', busy],
    ];
    if (options.maxRps)
      rows.push(
        ...rateRows(
          creates.map((r) => r.startedAt),
          options.maxRps,
        ),
      );
    console.log(`  ${options.workers} worker process${options.workers === 1 ? '' : 'es'}`);
    console.log(table(rows));
    return { rate };
  } finally {
    for (const child of processes) await child.stop();
    await target.close();
    await redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The rate the target saw: over the whole run, and in its busiest second (a sliding window). */
function rateRows(times: number[], maxRps: number): [string, string][] {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= 1000) start++;
    busiest = Math.max(busiest, end - start + 1);
  }
  const span = ((sorted.at(-1) ?? 0) - (sorted[0] ?? 0)) / 1000;
  return [
    ['average rate', `${Math.round(sorted.length / Math.max(span, 0.001))}/s (cap ${maxRps}/s)`],
    ['busiest second', `${busiest} requests (cap ${maxRps})`],
  ];
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisNode, type RedisNode } from '../test/support/redis-node.js';
import { CLIENTS, drive, report, SCIM_TOKEN, SECONDS, USER_TEMPLATE } from './scim-push.bench.js';
import { startBridgeProcess, table } from './support.js';

/**
 * What acknowledged-means-replicated costs (issue 22): SCIM creates (POST /scim/v2/Users from
 * CLIENTS concurrent clients, BENCH_SCIM_CLIENTS) against a local primary with one replica, with
 * REDIS_MIN_REPLICAS=0 (answered once the primary holds the write) and 1 (once the replica does
 * too: a Redis WAIT after each acknowledged write, shared by the writes that finished before it).
 * A bridge `serve` process takes the requests; no worker runs, so only the input path is measured.
 * The settings take turns, BENCH_REPLICAS_ROUNDS times (default 2), so that a machine busy with
 * something else shows as a spread between rounds rather than as a difference between settings.
 * BENCH_SCIM_SECONDS (default 10) per run.
 */
const ROUNDS = Number(process.env.BENCH_REPLICAS_ROUNDS ?? 2);

export default async function redisReplicasBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'scim-bridge-bench-replicas-'));
  const nodes: RedisNode[] = [];
  try {
    const primary = await startRedisNode({ root });
    nodes.push(primary);
    const replica = await startRedisNode({ root, config: [`replicaof 127.0.0.1 ${primary.port}`] });
    nodes.push(replica);
    const rows: [string, string | number][] = [
      ['WAIT 1 after a SET, alone on a connection: p50 / p99', await waitRoundTrip(primary)],
      [
        'processes',
        `bridge serve + Redis primary + replica (loopback); ${CLIENTS} clients in a worker thread`,
      ],
    ];
    const runs = Array.from({ length: ROUNDS }, (_, round) =>
      [0, 1].map((minReplicas) => ({ round, minReplicas })),
    );
    for (const { round, minReplicas } of runs.flat()) {
      const serve = await startBridgeProcess(
        {
          REDIS_URL: `redis://${primary.address}`,
          KEY_PREFIX: `{bench-replicas-${round}-${minReplicas}}`,
          REDIS_MIN_REPLICAS: String(minReplicas),
          // A serve process never calls the platform.
          TARGET_URL: 'http://127.0.0.1:9',
          TARGET_TOKEN: 'bench-target-token-000000',
          INBOUND_SCIM_TOKEN: SCIM_TOKEN,
        },
        'serve',
      );
      try {
        const phase = await drive({ url: serve.url, seconds: SECONDS, templates: [USER_TEMPLATE], ids: [] });
        rows.push(...report(`round ${round + 1}, REDIS_MIN_REPLICAS=${minReplicas}: POST /Users`, phase));
      } finally {
        await serve.stop();
      }
    }
    console.log(table(rows));
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(root, { recursive: true, force: true });
  }
}

/** The replica round trip itself: SET then WAIT 1, 2,000 times in a row on one connection. */
async function waitRoundTrip(primary: RedisNode): Promise<string> {
  const client = primary.client();
  const times: number[] = [];
  for (let n = 0; n < 2000; n++) {
    await client.set('{bench-replicas}:probe', String(n));
    const started = performance.now();
    await client.wait(1, 500);
    times.push(performance.now() - started);
  }
  client.disconnect();
  times.sort((a, b) => a - b);
  const at = (p: number) => `${(times[Math.floor(times.length * p)] ?? 0).toFixed(2)} ms`;
  return `${at(0.5)} / ${at(0.99)}`;
}

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { runSync, startBridgeProcess, startTargetProcess, table, targetCeiling } from './support.js';

/**
 * Full reconciliation figures (issue: directory syncs):
 *  (a) 100,000 users and 5,000 groups of ~20 members already on the target, 1% drifted, target at
 *      10 ms latency with a page cap of 100, TARGET_CONCURRENCY=8: requests against the lower bound
 *      (list pages + the writes the drift needs), wall time, identities/s, bridge peak RSS, Redis
 *      bytes per identity.
 *  (b) initial provisioning of 10,000 users and 500 groups into an empty target at 10 ms latency:
 *      creates/s against the bound TARGET_CONCURRENCY / latency.
 * The bridge runs in its own process (compiled), the target in this one, Redis as its own server.
 */
const TOKEN = 'bench-target-token-000000';
const ADMIN = 'bench-admin-token-000000';
const LATENCY_MS = 10;
const CONCURRENCY = 8;

export default async function fullSyncBench(): Promise<void> {
  const users = Number(process.env.BENCH_USERS ?? 100_000);
  const groups = Number(process.env.BENCH_GROUPS ?? 5_000);
  await drifted(users, groups);
  await initial(Math.round(users / 10), Math.round(groups / 10));
}

function directory(users: number, groups: number) {
  const people = Array.from({ length: users }, (_, i) => ({
    id: `emp-${i}`,
    userName: `person${i}@bench.example`,
    name: { givenName: `Given${i}`, familyName: `Family${i}` },
    emails: [{ value: `person${i}@bench.example`, primary: true }],
    active: true,
  }));
  const teams = Array.from({ length: groups }, (_, g) => ({
    id: `team-${g}`,
    displayName: `Team ${g}`,
    members: Array.from({ length: 20 }, (_, k) => `emp-${(g * 20 + k) % users}`),
  }));
  return { users: people, groups: teams };
}

async function drifted(userCount: number, groupCount: number): Promise<void> {
  console.log(
    `(a) ${userCount} users, ${groupCount} groups on the target, 1% drifted, ${LATENCY_MS} ms latency, page cap 100`,
  );
  const work = mkdtempSync(join(tmpdir(), 'bench-sync-'));
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({ token: TOKEN, pageCap: 100 });
  const snapshot = directory(userCount, groupCount);
  const seeded = Date.now();
  seedTarget(target, snapshot);
  console.log(`  seeded the target in ${Date.now() - seeded} ms`);
  const file = join(work, 'directory.json');
  writeFileSync(file, JSON.stringify(snapshot));
  const baseline = await redisMemory(redis.url);
  const bridge = await startBridgeProcess({
    ...bridgeEnv(redis.url, target.url),
    DIRECTORY_SOURCE: 'file',
    DIRECTORY_FILE: file,
  });
  try {
    const adopt = await runSync(bridge.url, ADMIN);
    console.log(
      `  first sync (adopts everything): ${adopt.state} in ${(adopt.summary.durationMs / 1000).toFixed(1)} s`,
    );
    const adoptionPeakMb = bridge.peakRssMb();
    bridge.resetPeak();
    const drift = driftTarget(target, userCount, groupCount);
    target.resetStats();
    target.faults.setLatency({ ms: LATENCY_MS });
    const started = Date.now();
    const result = await runSync(bridge.url, ADMIN);
    const wall = (Date.now() - started) / 1000;
    const stats = target.stats({ limit: 0 });
    const pages = Math.ceil(userCount / 100) + Math.ceil(groupCount / 100);
    const bound = pages + drift;
    const used = await redisMemory(redis.url);
    console.log(
      table([
        ['state', result.state],
        ['requests by method', JSON.stringify(stats.byMethod)],
        ['lower bound (pages + drift writes)', `${bound} (${pages} + ${drift})`],
        ['ratio', (stats.total / bound).toFixed(3)],
        ['wall time', `${wall.toFixed(1)} s`],
        ['phases (ms)', JSON.stringify(result.summary.phasesMs)],
        ['RSS at the end of each phase (MB)', JSON.stringify(result.summary.rssMb)],
        ['identities per second', Math.round((userCount + groupCount) / wall)],
        ['bridge peak RSS (this sync)', `${bridge.peakRssMb()} MB`],
        ['bridge peak RSS (first sync, adopting all)', `${adoptionPeakMb} MB`],
        ['Redis per identity', `${Math.round((used - baseline) / (userCount + groupCount))} bytes`],
      ]),
    );
  } finally {
    await bridge.stop();
    await target.close();
    await redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function initial(userCount: number, groupCount: number): Promise<void> {
  console.log(
    `\n(b) initial provisioning of ${userCount} users and ${groupCount} groups, ${LATENCY_MS} ms latency`,
  );
  const work = mkdtempSync(join(tmpdir(), 'bench-sync-'));
  const redis = await startEmbeddedRedis();
  // The target in a process of its own, as the platform would be; the bridge in another.
  const args = ['--latency', String(LATENCY_MS), '--page-cap', '100'];
  const probe = await startTargetProcess(TOKEN, args);
  const ceiling = await targetCeiling(`${probe.url}/api/scim/v2`, TOKEN, CONCURRENCY, 2000);
  await probe.stop();
  const target = await startTargetProcess(TOKEN, args);
  const file = join(work, 'directory.json');
  writeFileSync(file, JSON.stringify(directory(userCount, groupCount)));
  const env = { ...bridgeEnv(redis.url, target.url), DIRECTORY_SOURCE: 'file', DIRECTORY_FILE: file };
  const bridge = await startBridgeProcess(env);
  try {
    const started = Date.now();
    const result = await runSync(bridge.url, ADMIN);
    const wall = (Date.now() - started) / 1000;
    const stats = await target.stats();
    const creates = (stats.byRoute['POST /Users'] ?? 0) + (stats.byRoute['POST /Groups'] ?? 0);
    const bound = CONCURRENCY / (LATENCY_MS / 1000);
    const rate = creates / wall;
    const usersPhase =
      (stats.byRoute['POST /Users'] ?? 0) / ((result.summary.phasesMs?.users ?? wall * 1000) / 1000);
    console.log(
      table([
        ['state', result.state],
        ['requests by method', JSON.stringify(stats.byMethod)],
        ['wall time', `${wall.toFixed(1)} s`],
        ['phases (ms)', JSON.stringify(result.summary.phasesMs)],
        ['creates per second (whole sync)', Math.round(rate)],
        ['creates per second (users phase)', Math.round(usersPhase)],
        ['bound (concurrency / latency)', `${bound}/s`],
        [
          'share of the bound',
          `${Math.round((rate / bound) * 100)}% (users phase ${Math.round((usersPhase / bound) * 100)}%)`,
        ],
        ['target ceiling here (8 plain clients)', `${Math.round(ceiling)}/s`],
        ['bridge peak RSS', `${bridge.peakRssMb()} MB`],
      ]),
    );
  } finally {
    await bridge.stop();
    await target.stop();
    await redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function bridgeEnv(redisUrl: string, targetUrl: string): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    TARGET_URL: targetUrl,
    TARGET_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    TARGET_CONCURRENCY: String(CONCURRENCY),
    LOG_LEVEL: 'warn',
    DEPROVISION_LIMIT: '100%',
  };
}

function seedTarget(target: ReferenceTarget, snapshot: ReturnType<typeof directory>): void {
  const ids = new Map<string, string>();
  for (const u of snapshot.users) {
    const { id, ...rest } = u;
    ids.set(id, target.insertUser({ ...rest, externalId: id }).id);
  }
  for (const g of snapshot.groups) {
    target.insertGroup({
      displayName: g.displayName,
      externalId: g.id,
      members: g.members.map((m) => ({ value: ids.get(m) ?? '' })),
    });
  }
}

/** Changes 1% of users (a name) and 1% of groups (one member fewer) behind the bridge's back. */
function driftTarget(target: ReferenceTarget, userCount: number, groupCount: number): number {
  const users = target.users();
  const step = Math.max(1, Math.floor(userCount / Math.max(1, userCount / 100)));
  let drifted = 0;
  for (let i = 0; i < users.length; i += step) {
    const user = users[i];
    if (!user) continue;
    target.updateUser(user.id, { name: { givenName: 'Drifted', familyName: user.name?.familyName ?? '' } });
    drifted++;
  }
  const groups = target.groups();
  for (let i = 0; i < groups.length; i += 100) {
    const group = groups[i];
    if (!group) continue;
    target.updateGroup(group.id, { members: group.members.slice(1).map(({ value }) => ({ value })) });
    drifted++;
  }
  void groupCount;
  return drifted;
}

async function redisMemory(url: string): Promise<number> {
  const client = new Redis(url);
  try {
    const info = await client.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
  } finally {
    client.disconnect();
  }
}

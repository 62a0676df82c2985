import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The reference target's source, as the tests run it: this bench needs no build of its package.
import { startReferenceTarget } from '../reference-target/src/index.js';
import { loadConfig } from '../src/config/load-config.js';
import { startBridge } from '../src/main.js';
import { startEmbeddedRedis } from '../src/ops/embedded-redis.js';
import { silentLogger } from '../src/ops/logger.js';
import { CATALOG } from '../src/sources/registry.js';
import { buildLargeDirectory, GoogleWorkspace } from '../test/support/google-workspace.js';
import { runSync, table, type SyncResult } from './support.js';

/**
 * A full read of a large Google Workspace (issue 32): BENCH_GOOGLE_USERS users (default 100,000)
 * and BENCH_GOOGLE_GROUPS groups (default 5,000) nested eight to a parent, with the fixture's
 * cases (a cycle, a CUSTOMER member, external members, another customer's subgroup), served by the
 * Google Workspace emulation (Google's quota: 2,400 a minute); a bridge with DIRECTORY_SOURCE=google
 * and its default budget of 1,800 requests a minute reads it in a dry run (the read and the plan,
 * no platform write; the reference target is empty). All three share this process, as in the tests
 * (the read is bound by the budget, not by CPU). Figures: the read's wall time, the requests by
 * method, the busiest minute against the budget, how much of the time the emulation itself spent,
 * and the process's peak RSS (the emulation's account included).
 */
const TOKEN = 'bench-target-token-000000';
const ADMIN = 'bench-admin-token-000000';
const BUDGET = 1800;

export default async function googleBench(): Promise<void> {
  const users = Number(process.env.BENCH_GOOGLE_USERS ?? '100000');
  const groups = Number(process.env.BENCH_GOOGLE_GROUPS ?? '5000');
  const work = mkdtempSync(join(tmpdir(), 'bench-google-'));
  const google = await GoogleWorkspace.start();
  const seeded = Date.now();
  const directory = buildLargeDirectory(google, { users, groups });
  console.log(
    `\n${users} users, ${groups} groups (${directory.memberships} direct memberships, depth ${directory.depth}), seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
  );
  const redis = await startEmbeddedRedis();
  const target = await startReferenceTarget({ token: TOKEN, maxRecordedRequests: 0 });
  const keyPath = join(work, 'service-account.json');
  writeFileSync(keyPath, google.keyFile());
  try {
    const config = loadConfig(
      {
        REDIS_URL: redis.url,
        TARGET_URL: target.url,
        TARGET_TOKEN: TOKEN,
        ADMIN_TOKEN: ADMIN,
        SYNC_SCHEDULE: '',
        DIRECTORY_SOURCE: 'google',
        DIRECTORY_DELTA_SECONDS: '0',
        GOOGLE_SERVICE_ACCOUNT_FILE: keyPath,
        GOOGLE_ADMIN_SUBJECT: google.adminEmail,
        GOOGLE_API_URL: google.url,
      },
      CATALOG,
    );
    const bridge = await startBridge(config, { role: 'all', port: 0, logger: silentLogger() });
    try {
      const started = Date.now();
      const result = await runSync(bridge.http.url, ADMIN, { dryRun: true });
      report(google, result, (Date.now() - started) / 1000);
    } finally {
      await bridge.close();
    }
  } finally {
    await target.close();
    await redis.stop();
    await google.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function report(google: GoogleWorkspace, result: SyncResult, wall: number): void {
  const requests = google.requests().filter((r) => r.api !== undefined);
  const byMethod: Record<string, number> = {};
  for (const r of requests) byMethod[r.api as string] = (byMethod[r.api as string] ?? 0) + 1;
  const observed = google.observed();
  const first = requests[0]?.at ?? 0;
  const last = requests.at(-1)?.at ?? first;
  const minutes = (last - first) / 60_000;
  const emulationSeconds = requests.reduce((sum, r) => sum + r.took, 0) / 1000;
  const tokens = google.requests().filter((r) => r.path === '/token').length;
  const error = (result as { error?: { code?: string; message?: string } }).error;
  console.log(
    table([
      ['state', error ? `${result.state}: ${error.code} ${error.message}` : result.state],
      ['wall time (dry-run sync)', `${wall.toFixed(1)} s`],
      ['reading the source', `${((result.summary?.phasesMs?.readingSource ?? 0) / 1000).toFixed(1)} s`],
      ['API requests', `${requests.length} (+ ${tokens} token requests)`],
      ['by method', JSON.stringify(byMethod)],
      ['refused (403/429/5xx)', String(requests.filter((r) => r.status !== 200).length)],
      [
        'requests a minute, mean',
        minutes >= 1 ? (requests.length / minutes).toFixed(0) : 'n/a (under a minute)',
      ],
      ['requests a minute, busiest (sliding)', `${observed.peakPerMinute} (budget ${BUDGET}, Google 2400)`],
      ['time the emulation spent answering', `${emulationSeconds.toFixed(1)} s`],
      ['process peak RSS', `${Math.round(process.resourceUsage().maxRSS / 1024)} MB`],
      ['phases (ms)', JSON.stringify(result.summary?.phasesMs)],
    ]),
  );
}

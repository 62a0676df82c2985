import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { startIdpLoad, type IdpLoad } from '../support/idp-load.js';
import { logSink } from '../support/log-sink.js';
import { startSentinelTopology, type SentinelTopology } from '../support/redis-sentinel.js';
import { uniquePrefix } from '../support/redis.js';
import { cleanUp } from '../support/clean-up.js';
import { until } from '../support/until.js';
import { convergence, settledSync, snapshotOf } from '../support/convergence.js';

// Real: a Redis primary, its replica and three Sentinels (redis-server processes on loopback), a
// bridge `serve` process and a `worker` (the real wiring, in this process) connected through the
// Sentinels, BullMQ, the reference target over HTTP, an IdP pushing creates over HTTP. The fault is
// real too: the primary is killed with SIGKILL and the Sentinels promote the replica.
const SCIM_TOKEN = 'sentinel-scim-token-0123456789';
const ADMIN_TOKEN = 'sentinel-admin-token-0123456789';

describe('Redis Sentinel: a failover while an IdP pushes and a full sync runs', () => {
  let topology: SentinelTopology;
  let target: ReferenceTarget;
  const engines: EngineFixture[] = [];
  let load: IdpLoad | undefined;

  beforeAll(async () => {
    topology = await startSentinelTopology();
    target = await startTarget({ latencyMs: 5 });
  });
  afterAll(() =>
    cleanUp(
      () => load?.stop(),
      ...engines.map((engine) => () => engine.close()),
      () => target?.close(),
      () => topology?.stop(),
    ),
  );

  it('answers 503 with Retry-After until the replica is promoted, serves again, and converges', async () => {
    const env = {
      CONFIG_FILE: topology.configFile,
      KEY_PREFIX: uniquePrefix('sentinel'),
      INBOUND_SCIM_TOKEN: SCIM_TOKEN,
      ADMIN_TOKEN,
    };
    const serveLogs = logSink([], 'info');
    const serve = await startEngine(target, env, { role: 'serve', logger: serveLogs.logger });
    engines.push(serve);
    engines.push(await startEngine(target, env, { role: 'worker' }));
    const admin = () => request(serve.bridge.http.server);
    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

    const idp = startIdpLoad({
      url: serve.bridge.http.url,
      token: SCIM_TOKEN,
      clients: 8,
      label: 'sentinel',
    });
    load = idp;
    await until('creates to be answered', () => idp.acknowledged.size >= 50);
    const sync = await admin()
      .post('/admin/sync')
      .set(auth)
      .send({ snapshot: snapshotOf(300) })
      .expect(202);
    const jobId = sync.body.jobId as string;
    await until('the sync to run', async () => {
      const record = await admin().get(`/admin/sync/${jobId}`).set(auth);
      return record.body.state === 'running';
    });

    const killedAt = Date.now();
    await topology.primary.kill();
    await topology.primaryIs(topology.replica.address);
    const refused = await until('a create refused after the kill', () =>
      idp.answers.find((answer) => answer.at > killedAt && answer.status !== 201),
    );
    const servedAgain = await until('a create answered 201 after the failover', () =>
      idp.answers.find((answer) => answer.at > refused.at && answer.status === 201),
    );
    await until(
      'creates to go on',
      () => idp.answers.filter((answer) => answer.at > servedAgain.at && answer.status === 201).length >= 20,
    );
    await idp.stop();

    // Between the kill and the promotion: 503 with Retry-After, never another 5xx, never a hang.
    const during = idp.answers.filter((a) => a.at >= refused.at && a.at < servedAgain.at);
    expect(during.length).toBeGreaterThan(0);
    for (const answer of idp.answers) {
      expect([201, 409, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.retryAfter).toMatch(/^\d+$/);
    }
    process.stderr.write(`Sentinel failover: 503 for ${servedAgain.at - killedAt} ms after the kill\n`);

    // The sync the kill interrupted ends by itself; run again, it completes.
    const interrupted = await settledSync(admin, auth, jobId);
    if (interrupted.state !== 'completed') {
      const again = await admin()
        .post('/admin/sync')
        .set(auth)
        .send({ snapshot: snapshotOf(300) });
      expect(again.status).toBe(202);
      expect((await settledSync(admin, auth, again.body.jobId as string)).state).toBe('completed');
    }

    await serve.drain(60_000);
    const { desired, missing, extra } = await convergence(serve, target, SCIM_TOKEN);
    expect(desired).toBeGreaterThan(300);
    expect(missing).toEqual([]);
    // A create stored and reconciled just before the kill, but not yet on the replica, is on the
    // platform and no longer desired (REDIS_MIN_REPLICAS=0 here): only the IdP's own users can be.
    expect(extra.filter((name) => !name.startsWith('sentinel-'))).toEqual([]);

    // The serving process logged the switch once, naming both primaries.
    const switches = serveLogs.lines().filter((line) => line.msg === 'Redis primary switched');
    expect(switches).toEqual([
      expect.objectContaining({ from: topology.primary.address, to: topology.replica.address }),
    ]);
    const checked = checkConfig({ CONFIG_FILE: topology.configFile, REDIS_MIN_REPLICAS: '1' });
    expect(checked.status).toBe(0);
    expect(checked.stdout).toContain(
      `# redis: Sentinel "${topology.name}" through 3 Sentinels; primary now ${topology.replica.address} with 0 replicas connected\n` +
        '# redis: inputs are answered once 1 replica holds their write (REDIS_MIN_REPLICAS=1, waiting up to ' +
        '500 ms, else 503 with Retry-After) — fewer are connected now, so every input write would be answered 503\n',
    );
    const status = await admin().get('/admin/status').set(auth).expect(200);
    expect(status.body.redis).toEqual({
      topology: 'sentinel',
      primary: topology.replica.address,
      sentinel: { name: topology.name, nodes: 3 },
      replicas: 0,
      minReplicas: 0,
      replicaTimeoutMs: 500,
    });
  }, 90_000);
});

/** `scim-bridge check-config` in a child process, as an operator runs it. */
function checkConfig(env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'check-config'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: 'redis://127.0.0.1:6379',
      TARGET_URL: 'https://acme.example.com',
      TARGET_TOKEN: 'sentinel-target-token-0123456789',
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout };
}

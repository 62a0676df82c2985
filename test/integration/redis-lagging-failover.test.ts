import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { startIdpLoad, type IdpLoad } from '../support/idp-load.js';
import { scimUsers } from '../support/convergence.js';
import { startSentinelTopology, type SentinelTopology } from '../support/redis-sentinel.js';
import { uniquePrefix } from '../support/redis.js';
import { cleanUp } from '../support/clean-up.js';
import { until } from '../support/until.js';

// Real: a Redis primary, its replica and three Sentinels (redis-server processes on loopback), a
// bridge (`all`, the real wiring) connected through the Sentinels, the reference target over HTTP,
// an IdP pushing creates from 16 clients. The faults are real: the replica stops reading the
// replication stream (DEBUG SLEEP, as a network partition does), then the primary is killed with
// SIGKILL and the Sentinels promote the replica once it answers again.
//
// On loopback the kernel's socket buffers (several MB here) hold what a sleeping replica has not
// read and hand it over when it wakes: the bridge's own writes (a few hundred creates a second
// on this machine) would take longer than any sleep to fill them. So another client of the
// primary writes 8 MB meanwhile, as any other application sharing the Redis would: once the
// primary keeps the replica's stream in its own memory (CLIENT LIST `omem`), everything written
// after is lost with it — deterministically, since the replica sleeps until after the kill.
const SCIM_TOKEN = 'lagging-scim-token-0123456789';
const REPLICA_SLEEP_SECONDS = 6;
/** The replica's stream the primary holds in its own memory before it is killed. */
const UNSENT_BYTES = 1024 * 1024;

describe('a failover after the replica fell behind', () => {
  let topology: SentinelTopology | undefined;
  let target: ReferenceTarget | undefined;
  let engine: EngineFixture | undefined;
  let load: IdpLoad | undefined;

  afterEach(() =>
    cleanUp(
      () => load?.stop(),
      () => engine?.close(),
      () => target?.close(),
      () => topology?.stop(),
    ),
  );

  /** Creates answered 201 that the promoted replica does not hold. */
  async function lagThenFailover(minReplicas: number): Promise<{ acknowledged: number; lost: string[] }> {
    topology = await startSentinelTopology({ replicaConfig: ['enable-debug-command yes'] });
    target = await startTarget();
    engine = await startEngine(target, {
      CONFIG_FILE: topology.configFile,
      KEY_PREFIX: uniquePrefix('lag'),
      INBOUND_SCIM_TOKEN: SCIM_TOKEN,
      REDIS_MIN_REPLICAS: String(minReplicas),
    });
    const idp = startIdpLoad({ url: engine.bridge.http.url, token: SCIM_TOKEN, clients: 16, label: 'lag' });
    load = idp;
    await until('creates to be answered', () => idp.acknowledged.size >= 100);

    const wakes = await putReplicaToSleep(topology);
    const primary = topology.primary.client();
    const noise = primary.pipeline();
    for (let n = 0; n < 32; n++) noise.set(`{lag-noise}:${n}`, 'x'.repeat(256 * 1024));
    await noise.exec();
    await until(
      'the primary to hold the replica stream itself',
      async () => (await unsent(primary)) >= UNSENT_BYTES,
    );
    const answered = idp.answers.length;
    await until('creates answered meanwhile', () => idp.answers.length >= answered + 20);
    expect(wakes.done()).toBe(false);
    await topology.primary.kill();

    await topology.primaryIs(topology.replica.address);
    await wakes.promise;
    await idp.stop();
    const redis = engine.bridge.store.redis;
    await until('the bridge to reach the promoted replica', () =>
      redis.ping().then((pong) => pong === 'PONG'),
    );
    await engine.drain(60_000);
    const held = await scimUsers(engine.bridge.http.url, SCIM_TOKEN);
    const lost = [...idp.acknowledged.keys()].filter((userName) => !held.has(userName));
    process.stderr.write(
      `REDIS_MIN_REPLICAS=${minReplicas}: ${lost.length} of ${idp.acknowledged.size} creates answered 201 were lost\n`,
    );
    return { acknowledged: idp.acknowledged.size, lost };
  }

  it('with REDIS_MIN_REPLICAS=0, creates answered 201 are lost', async () => {
    const { lost } = await lagThenFailover(0);
    expect(lost.length).toBeGreaterThan(0);
  }, 90_000);

  it('with REDIS_MIN_REPLICAS=1, every create answered 201 survives and reaches the platform', async () => {
    const { acknowledged, lost } = await lagThenFailover(1);
    expect(acknowledged).toBeGreaterThanOrEqual(100);
    expect(lost).toEqual([]);
    for (const answer of load?.answers ?? []) {
      expect([201, 409, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.retryAfter).toMatch(/^\d+$/);
    }
    const onPlatform = new Set(target?.users().map((user) => user.userName));
    expect([...(load?.acknowledged.keys() ?? [])].filter((name) => !onPlatform.has(name))).toEqual([]);

    // The promoted replica has no replica of its own: creates wait for one. The old primary comes
    // back as its replica (as a Sentinel-aware start-up script does), and creates are answered
    // 201 again.
    await topology?.primary.restart([`replicaof 127.0.0.1 ${topology.replica.port}`]);
    const again = startIdpLoad({
      url: engine?.bridge.http.url ?? '',
      token: SCIM_TOKEN,
      clients: 2,
      label: 'back',
    });
    load = again;
    await until(
      'a create answered 201 with the old primary back as a replica',
      () => again.acknowledged.size > 0,
    );
  }, 90_000);
});

/** DEBUG SLEEP on the replica; resolves once it no longer answers (it is asleep). */
async function putReplicaToSleep(
  topology: SentinelTopology,
): Promise<{ promise: Promise<unknown>; done(): boolean }> {
  const sleeper = topology.replica.client();
  await sleeper.ping();
  let done = false;
  const promise = sleeper
    .call('DEBUG', 'SLEEP', String(REPLICA_SLEEP_SECONDS))
    .catch(() => undefined)
    .finally(() => (done = true));
  await until('the replica to sleep', () => unanswered(topology.replica.client()));
  return { promise, done: () => done };
}

/** Whether a server leaves a PING unanswered for 200 ms (DEBUG SLEEP blocks it whole). */
async function unanswered(client: Redis): Promise<boolean> {
  try {
    const answer = client.ping().then(() => false);
    return await Promise.race([answer, new Promise<boolean>((resolve) => setTimeout(resolve, 200, true))]);
  } finally {
    client.disconnect();
  }
}

/**
 * The replica's stream that the primary holds in its own memory, not yet handed to the kernel
 * (CLIENT LIST `omem` of the replica's connection; about one 16 KB block while it keeps up).
 */
async function unsent(primary: Redis): Promise<number> {
  const clients = (await primary.call('CLIENT', 'LIST', 'TYPE', 'replica')) as string;
  return Number(/ omem=(\d+)/.exec(clients)?.[1] ?? 0);
}

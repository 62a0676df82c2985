import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, TARGET_TOKEN, type EngineFixture } from '../support/engine.js';
import { spawnBridge, type BridgeProcess } from '../support/processes.js';
import { testRedisUrl } from '../support/redis.js';

// Real: Redis, BullMQ job scheduler and workers (in this process and in child processes), the
// reference target over HTTP.
const ADMIN = 'admin-token-for-sync-tests';

describe('scheduled and interrupted full reconciliations', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture | undefined;
  const workers: BridgeProcess[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
    await engine?.close();
    engine = undefined;
    await target?.close();
  });

  it('follows SYNC_SCHEDULE, replaces it on restart, and removes it when empty', async () => {
    target = await startTarget();
    engine = await startEngine(target, { SYNC_SCHEDULE: '*/2 * * * * *', ADMIN_TOKEN: ADMIN });
    const syncs = () => engine!.bridge.store.syncs;
    const schedulers = async () => (await syncs().queue.getJobSchedulers()).map((s) => s.pattern);
    expect(await schedulers()).toEqual(['*/2 * * * * *']);
    await expect
      .poll(
        async () =>
          (await syncs().list(5)).filter((s) => s.trigger === 'schedule' && s.state === 'completed').length,
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0);

    const prefix = engine.bridge.config.redis.keyPrefix;
    await engine.bridge.close();
    engine = await startEngine(target, { KEY_PREFIX: prefix, SYNC_SCHEDULE: '0 3 * * *' });
    expect(await schedulers()).toEqual(['0 3 * * *']);
    await engine.bridge.close();
    engine = await startEngine(target, { KEY_PREFIX: prefix, SYNC_SCHEDULE: '' });
    expect(await schedulers()).toEqual([]);
  });

  it('finishes a sync whose worker was killed mid-way, without duplicate writes', async () => {
    target = await startTarget({ latencyMs: 20, pageCap: 50 });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN }, { role: 'serve' });
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: engine.bridge.config.redis.keyPrefix,
      TARGET_URL: target.url,
      TARGET_TOKEN,
      RECONCILE_LOCK_SECONDS: '1',
    };
    const first = await spawnBridge(['worker'], env);
    workers.push(first);
    const snapshot = {
      users: Array.from({ length: 200 }, (_, i) => ({
        id: `u${i}`,
        userName: `user${i}@example.com`,
        active: true,
      })),
      groups: [{ id: 'g', displayName: 'Everyone', members: Array.from({ length: 200 }, (_, i) => `u${i}`) }],
    };
    const http = request(engine.bridge.http.server);
    const { jobId } = (
      await http.post('/admin/sync').set('Authorization', `Bearer ${ADMIN}`).send({ snapshot }).expect(202)
    ).body as {
      jobId: string;
    };
    await expect.poll(() => target.users().length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(30);
    await first.stop('SIGKILL');
    expect(target.users().length).toBeLessThan(200);

    workers.push(await spawnBridge(['worker'], env));
    await expect
      .poll(async () => (await engine!.bridge.store.syncs.get(jobId))?.state, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe('completed');
    const names = target.users().map((u) => u.userName);
    expect(new Set(names).size).toBe(200);
    expect(names).toHaveLength(200);
    expect(target.findGroupByDisplayName('Everyone')?.members).toHaveLength(200);
    const created = target.stats().requests.filter((r) => r.method === 'POST' && r.status === 201);
    expect(created).toHaveLength(201);
  }, 120_000);
});

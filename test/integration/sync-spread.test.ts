import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, TARGET_TOKEN, type EngineFixture } from '../support/engine.js';
import { spawnBridge, type BridgeProcess } from '../support/processes.js';
import { testRedisUrl } from '../support/redis.js';

// Real: two worker processes (separate Node processes), Redis, BullMQ, the reference target over
// HTTP; this process serves the admin API only (role `serve`). A full sync runs in one worker
// process; its per-identity jobs run in both, and the sync sees every outcome.
const ADMIN = 'admin-token-for-spread-tests';

describe('a full sync applied by several worker processes', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  const workers: BridgeProcess[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
    await engine?.close();
    await target?.close();
  });

  it('runs its jobs on every worker process and counts them all', async () => {
    target = await startTarget({ latencyMs: 10 });
    engine = await startEngine(target, { ADMIN_TOKEN: ADMIN }, { role: 'serve' });
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: engine.bridge.config.redis.keyPrefix,
      TARGET_URL: target.url,
      TARGET_TOKEN,
      TARGET_CONCURRENCY: '4',
    };
    workers.push(await spawnBridge(['worker'], env), await spawnBridge(['worker'], env));
    const users = Array.from({ length: 400 }, (_, n) => ({ id: `u${n}`, userName: `user${n}@example.com` }));
    const snapshot = { users, groups: [{ id: 'g', displayName: 'All', members: users.map((u) => u.id) }] };
    const http = request(engine.bridge.http.server);
    const { jobId } = (
      await http.post('/admin/sync').set('Authorization', `Bearer ${ADMIN}`).send({ snapshot }).expect(202)
    ).body as { jobId: string };
    await expect
      .poll(async () => (await engine.bridge.store.syncs.get(jobId))?.state, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe('completed');
    const record = await engine.bridge.store.syncs.get(jobId);
    expect(record?.outcomes).toEqual({ 'user:created': 400, 'group:created': 1 });
    expect(target.users()).toHaveLength(400);
    // Each process logs the changes it applied: both took part.
    const created = workers.map((w) => (w.output().match(/"action":"created"/g) ?? []).length);
    expect(created.every((n) => n > 0)).toBe(true);
    expect(created.reduce((a, b) => a + b, 0)).toBe(401);
  }, 90_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, TARGET_TOKEN, type EngineFixture } from '../support/engine.js';
import { spawnBridge, type BridgeProcess } from '../support/processes.js';
import { testRedisUrl } from '../support/redis.js';

// Real: worker processes (separate Node processes), Redis, BullMQ, the reference target over HTTP.
// The test process only runs the HTTP side (role `serve`) to write desired state.
describe('worker processes', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  const workers: BridgeProcess[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
    await engine?.close();
    await target?.close();
  });

  const env = (prefix: string, extra: Record<string, string> = {}) => ({
    REDIS_URL: testRedisUrl(),
    KEY_PREFIX: prefix,
    TARGET_URL: target.url,
    TARGET_TOKEN,
    RECONCILE_LOCK_SECONDS: '2',
    RECONCILE_BACKOFF_MS: '50',
    ...extra,
  });

  async function seed(users: number, groups: number) {
    const api = engine.bridge.store.api;
    for (let i = 0; i < users; i++)
      await api.upsertUser({ id: `u${i}`, userName: `user${i}@example.com`, active: true });
    for (let g = 0; g < groups; g++) {
      const members = Array.from({ length: 10 }, (_, k) => `u${(g * 7 + k * 3) % users}`);
      await api.upsertGroup({ id: `g${g}`, displayName: `Group ${g}`, members });
    }
  }

  function expectExactlyOnce(users: number, groups: number) {
    const names = target.users().map((u) => u.userName);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toHaveLength(users);
    expect(target.groups()).toHaveLength(groups);
    for (const group of target.groups()) expect(group.members).toHaveLength(10);
  }

  it('finishes the work of a worker killed mid-batch, without duplicates or losses', async () => {
    target = await startTarget({ latencyMs: 15 });
    engine = await startEngine(target, {}, { role: 'serve' });
    const prefix = engine.bridge.config.redis.keyPrefix;
    const first = await spawnBridge(['worker'], env(prefix, { WORKER_CONCURRENCY: '16' }));
    workers.push(first);
    await seed(150, 10);
    await expect.poll(() => target.users().length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(20);
    await first.stop('SIGKILL');
    const createdBeforeCrash = target.users().length;
    expect(createdBeforeCrash).toBeLessThan(150);

    workers.push(await spawnBridge(['worker'], env(prefix)));
    await engine.drain(60_000);
    expectExactlyOnce(150, 10);
    const posts = target.stats().requests.filter((r) => r.method === 'POST' && r.status === 201);
    expect(posts).toHaveLength(160);
    expect(await engine.bridge.store.redis.zcard(engine.bridge.store.keys.failures())).toBe(0);
  }, 120_000);

  it('gives two worker processes the same result as one, with no duplicate creates', async () => {
    target = await startTarget({ latencyMs: 5 });
    engine = await startEngine(target, {}, { role: 'serve' });
    const prefix = engine.bridge.config.redis.keyPrefix;
    workers.push(await spawnBridge(['worker'], env(prefix)), await spawnBridge(['worker'], env(prefix)));
    await seed(200, 12);
    await engine.drain(60_000);
    expectExactlyOnce(200, 12);
    const created = target.stats().requests.filter((r) => r.method === 'POST');
    expect(created.every((r) => r.status === 201)).toBe(true);
    expect(created).toHaveLength(212);
    expect(workers.every((w) => w.output().includes('created'))).toBe(true);
  }, 120_000);

  it('keeps TARGET_MAX_RPS across two worker processes together', async () => {
    target = await startTarget();
    engine = await startEngine(target, {}, { role: 'serve' });
    const prefix = engine.bridge.config.redis.keyPrefix;
    const limited = env(prefix, { TARGET_MAX_RPS: '20' });
    workers.push(await spawnBridge(['worker'], limited), await spawnBridge(['worker'], limited));
    await seed(40, 0);
    await engine.drain(60_000);
    expect(target.users()).toHaveLength(40);
    const starts = target
      .stats()
      .requests.map((r) => r.startedAt)
      .sort((a, b) => a - b);
    expect(starts.length).toBeGreaterThan(60);
    const first = starts[0] ?? 0;
    const last = starts.at(-1) ?? 0;
    // Two processes on their own would send about twice the cap (80 in two seconds). Measured where
    // the requests arrive, a busy machine bunches a few of them together: windows are two seconds
    // long and may hold 10% over the cap; the mean rate below must stay within it.
    for (const from of starts) {
      if (from < first + 1000) continue; // the first second may hold the initial burst
      const inWindow = starts.filter((t) => t >= from && t < from + 2000).length;
      expect(inWindow, `requests in the 2 s starting ${from - first} ms in`).toBeLessThanOrEqual(44);
    }
    const afterFirstSecond = starts.filter((t) => t >= first + 1000).length;
    expect(afterFirstSecond / ((last - first - 1000) / 1000)).toBeLessThanOrEqual(20);
  }, 120_000);
});

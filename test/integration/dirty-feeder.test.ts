import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityKey } from '../../src/domain/identity.js';
import { silentLogger } from '../../src/ops/logger.js';
import { startDirtyFeeder } from '../../src/queue/dirty-feeder.js';
import { DirtyWake } from '../../src/store/dirty-wake.store.js';
import { createKeys } from '../../src/store/keys.js';
import { RedisClock } from '../../src/store/redis-clock.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { ReconcileStateStore } from '../../src/store/reconcile-state.store.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: Redis and the dirty marks the desired-state script writes; the enqueue is recorded here.
describe('dirty feeder', () => {
  const config = testConfig();
  const keys = createKeys(config.redis.keyPrefix);
  let redis: RedisClient;
  let state: ReconcileStateStore;

  beforeAll(async () => {
    redis = createRedis(config.redis, 'worker');
    const clock = new RedisClock(redis);
    await clock.sync();
    state = new ReconcileStateStore(redis, keys, clock);
  });
  afterAll(async () => {
    await deleteKeys(config.redis.keyPrefix);
    await closeRedis(redis);
  });

  it('feeds new marks once each, again when they change, and sweeps old ones', async () => {
    const enqueued: string[] = [];
    const enqueue = async (batch: readonly IdentityKey[]) =>
      void enqueued.push(...batch.map((k) => `${k.kind}:${k.id}`));
    const settings = { feedMs: 60_000, sweepGraceMs: 60_000, sweepMs: 60_000, batch: 2 };
    const now = state.clock.now();
    await redis.zadd(
      keys.dirty(),
      now - 120_000,
      'user:old',
      now,
      'user:a',
      now + 1,
      'user:b',
      now + 2,
      'group:g',
    );
    // Marks a full sync wrote: it enqueues them itself, so only the sweep sees them, once old.
    await redis.zadd(keys.dirtyForSync(), now, 'user:synced', now - 120_000, 'user:lost-sync');
    const feeder = startDirtyFeeder(state, enqueue, silentLogger(), settings);
    try {
      expect(await feeder.feed()).toBe(3);
      expect(enqueued.sort()).toEqual(['group:g', 'user:a', 'user:b']);
      enqueued.length = 0;
      await feeder.feed();
      expect(enqueued).toEqual([]);
      await redis.zadd(keys.dirty(), now + 50, 'user:a');
      await feeder.feed();
      expect(enqueued).toEqual(['user:a']);
      enqueued.length = 0;
      expect(await feeder.sweep()).toBe(2);
      expect(enqueued.sort()).toEqual(['user:lost-sync', 'user:old']);
    } finally {
      feeder.stop();
    }
  });

  it('keeps feeding marks written at the real time after a mark that ran ahead of the clock', async () => {
    const enqueued: string[] = [];
    const enqueue = async (batch: readonly IdentityKey[]) =>
      void enqueued.push(...batch.map((k) => `${k.kind}:${k.id}`));
    const settings = { feedMs: 60_000, sweepGraceMs: 60_000, sweepMs: 60_000, batch: 100 };
    const now = state.clock.now();
    // A busy group's mark grows by at least 1 ms per change: it may stand seconds ahead.
    await redis.zadd(keys.dirty(), now + 10_000, 'group:busy');
    const feeder = startDirtyFeeder(state, enqueue, silentLogger(), settings);
    try {
      await feeder.feed();
      expect(enqueued).toContain('group:busy');
      await redis.zadd(keys.dirty(), state.clock.now(), 'user:after');
      await feeder.feed();
      expect(enqueued).toContain('user:after');
      expect(enqueued.filter((key) => key === 'group:busy')).toHaveLength(1);
    } finally {
      feeder.stop();
    }
  });

  it('feeds the marks of the last minute again once the connection is back (a failover may have lost their runs)', async () => {
    const enqueued: string[] = [];
    const enqueue = async (batch: readonly IdentityKey[]) =>
      void enqueued.push(...batch.map((k) => `${k.kind}:${k.id}`));
    const settings = { feedMs: 60_000, sweepGraceMs: 60_000, sweepMs: 60_000, batch: 100 };
    await redis.zadd(keys.dirty(), state.clock.now() - 5_000, 'user:survivor');
    const feeder = startDirtyFeeder(state, enqueue, silentLogger(), settings);
    try {
      await feeder.feed();
      expect(enqueued).toContain('user:survivor');
      enqueued.length = 0;
      await feeder.feed();
      expect(enqueued).toEqual([]);
      // The job fed for it and the run that would clear the mark were on a primary that is gone;
      // the mark, older than the cursor, survived on the one the connection reaches now.
      const back = new Promise((resolve) => redis.once('ready', resolve));
      redis.disconnect(true);
      await back;
      await feeder.feed();
      expect(enqueued).toContain('user:survivor');
    } finally {
      feeder.stop();
    }
  });

  it('feeds a woken batch at once, and a mark that landed late by the next timed feed', async () => {
    const enqueued: string[] = [];
    const enqueue = async (batch: readonly IdentityKey[]) =>
      void enqueued.push(...batch.map((k) => `${k.kind}:${k.id}`));
    const settings = { feedMs: 300, sweepGraceMs: 60_000, sweepMs: 60_000, batch: 100 };
    const wake = new DirtyWake(redis, keys);
    const mark = async (key: string, score: number) => {
      await redis.zadd(keys.dirty(), score, key);
      await redis.lpush(keys.dirtyWake(), '1');
    };
    const feeder = startDirtyFeeder(state, enqueue, silentLogger(), settings, wake);
    try {
      await mark('user:first', state.clock.now());
      await expect.poll(() => enqueued, { timeout: 5000, interval: 5 }).toContain('user:first');
      // A script that waited in a queue: its mark's score is 400 ms behind marks already fed.
      await mark('user:late', state.clock.now() - 400);
      await mark('user:next', state.clock.now());
      await expect.poll(() => enqueued, { timeout: 5000, interval: 5 }).toContain('user:next');
      await expect.poll(() => enqueued, { timeout: 5000, interval: 20 }).toContain('user:late');
      expect(enqueued.filter((key) => key === 'user:late')).toHaveLength(1);
    } finally {
      feeder.stop();
    }
  });
});

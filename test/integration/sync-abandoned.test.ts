import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/ops/logger.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: Redis and BullMQ; a bare BullMQ worker takes the sync's job and gives it up, as BullMQ does
// with a run whose worker was interrupted more often than it allows.
describe('a full sync whose job BullMQ gave up', () => {
  let store: StoreSide;
  let holder: Worker;

  beforeAll(async () => {
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
    holder = new Worker(QUEUES.sync, null, {
      connection: store.redis,
      prefix: store.keys.queuePrefix(),
      autorun: false,
    });
  });
  afterAll(async () => {
    await holder.close();
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it('is ended as interrupted, so the next sync may start; a sync still running is left alone', async () => {
    const first = await store.syncs.start({ dryRun: false, trigger: 'admin' });
    const job = await holder.getNextJob('lock-1');
    expect(job?.id).toBe(first.jobId);
    await job?.moveToFailed(new Error('job stalled more than allowable limit'), 'lock-1');
    expect((await store.syncs.start({ dryRun: false, trigger: 'admin' })).started).toBe(false);

    expect(await store.syncs.releaseAbandoned()).toEqual([first.jobId]);
    expect(await store.syncs.get(first.jobId)).toMatchObject({
      state: 'failed',
      error: { code: 'interrupted' },
    });

    const second = await store.syncs.start({ dryRun: false, trigger: 'admin' });
    expect(second.started).toBe(true);
    expect((await holder.getNextJob('lock-2'))?.id).toBe(second.jobId);
    expect(await store.syncs.releaseAbandoned()).toEqual([]);
    expect(await store.syncs.get(second.jobId)).toMatchObject({ state: 'queued' });
  });
});

import { Queue, type JobsOptions } from 'bullmq';
import type { IdentityKey } from '../domain/identity.js';
import type { RedisClient } from '../store/redis-connection.js';
import { replicated } from '../store/replica-ack.js';
import { reconcileDedupId } from './job-ids.js';
import { QUEUES } from './queue-names.js';
import type { ReconcileJobData } from './reconcile-job.js';
import { ResilientQueue } from './resilient-queue.js';

export interface ProducerSettings {
  attempts: number;
  queuePrefix: string;
}

/**
 * Enqueues reconcile jobs. At most one job per identity waits and at most one runs: deduplication
 * by identity with keepLastIfActive, so a change that arrives while the identity's job runs gets
 * exactly one follow-up run (a plain deduplication id would drop it).
 */
export class ReconcileProducer {
  private readonly holder: ResilientQueue<Queue<ReconcileJobData>>;

  constructor(
    private readonly connection: RedisClient,
    private readonly settings: ProducerSettings,
  ) {
    this.holder = new ResilientQueue(connection, () => {
      // Nothing reads the event stream beyond a glance in a dashboard: keep it short (memory).
      const queue = new Queue<ReconcileJobData>(QUEUES.reconcile, {
        connection,
        prefix: settings.queuePrefix,
        streams: { events: { maxLen: 100 } },
      });
      queue.on('error', () => undefined);
      return queue;
    });
  }

  get queue(): Queue<ReconcileJobData> {
    return this.holder.current;
  }

  async enqueue(
    keys: readonly IdentityKey[],
    extra: (key: IdentityKey) => Partial<ReconcileJobData> = () => ({}),
  ): Promise<void> {
    const job = (key: IdentityKey) => ({
      name: key.kind,
      data: { kind: key.kind, id: key.id, ...extra(key) },
      opts: this.jobOptions(key),
    });
    // One key: a plain add (addBulk builds a pipeline, which copies every script BullMQ defines).
    const [only] = keys;
    if (keys.length === 1 && only) {
      const one = job(only);
      await this.holder.run((queue) => queue.add(one.name, one.data, one.opts));
    } else {
      for (let i = 0; i < keys.length; i += 1000) {
        const jobs = keys.slice(i, i + 1000).map(job);
        await this.holder.run((queue) => queue.addBulk(jobs));
      }
    }
    // An operator's retry, answered once the replicas hold it (REDIS_MIN_REPLICAS; a no-op on the
    // workers' connections, whose jobs the level-triggered design rebuilds).
    await replicated(this.connection);
  }

  async idle(): Promise<boolean> {
    const states = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;
    const counts = await this.holder.run((queue) => queue.getJobCounts(...states));
    return Object.values(counts).every((n) => n === 0);
  }

  private jobOptions(key: IdentityKey): JobsOptions {
    return {
      deduplication: { id: reconcileDedupId(key), keepLastIfActive: true },
      attempts: this.settings.attempts,
      backoff: { type: 'custom' },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
    };
  }

  async close(): Promise<void> {
    await this.holder.close();
  }
}

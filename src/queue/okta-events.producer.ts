import { Queue, type JobsOptions } from 'bullmq';
import type { InputFreshnessStore } from '../store/input-freshness.store.js';
import type { RedisClient } from '../store/redis-connection.js';
import { replicated } from '../store/replica-ack.js';
import { ResilientQueue } from './resilient-queue.js';
import { OKTA_EVENTS_QUEUE, oktaEventJobId, type OktaEventJobData } from './okta-events-job.js';

export interface OktaEventProducerSettings {
  queuePrefix: string;
  /** Attempts of a job failing with a retryable error (Okta API down); rate limits spend none. */
  attempts?: number;
  /** Where a delivery is noted as the input's freshness. */
  seen?: {
    freshness: Pick<InputFreshnessStore, 'pushed'>;
    now: () => number;
  };
}

export const OKTA_PRODUCER_DEFAULTS = { attempts: 10 } as const;

/**
 * Enqueues Okta events delivered by Event Hooks. Give the hook's a
 * producer connection (no offline queue), so that a Redis outage fails the request at once (503)
 * and Okta delivers again later. A redelivered event finds its job by id (from its `uuid`) and adds
 * nothing while the job is kept; later, the store's event de-duplication skips it — also when the
 * System Log's change read brought the event first.
 */
export class OktaEventProducer {
  private readonly holder: ResilientQueue<Queue<OktaEventJobData>>;
  private readonly attempts: number;
  private readonly seen: OktaEventProducerSettings['seen'];

  constructor(
    private readonly connection: RedisClient,
    settings: OktaEventProducerSettings,
  ) {
    this.seen = settings.seen;
    this.holder = new ResilientQueue(connection, () => {
      const queue = new Queue<OktaEventJobData>(OKTA_EVENTS_QUEUE, {
        connection,
        prefix: settings.queuePrefix,
        streams: { events: { maxLen: 100 } },
      });
      queue.on('error', () => undefined);
      return queue;
    });
    this.attempts = settings.attempts ?? OKTA_PRODUCER_DEFAULTS.attempts;
  }

  get queue(): Queue<OktaEventJobData> {
    return this.holder.current;
  }

  /** Events a hook delivered: queued, the input's freshness noted. */
  async enqueue(events: readonly OktaEventJobData[]): Promise<void> {
    if (events.length === 0) return;
    await this.add(events);
    if (!this.seen) return;
    const changeAt = Math.max(...events.map((e) => e.published));
    await this.seen.freshness.pushed('okta', { at: this.seen.now(), changeAt });
  }

  private async add(events: readonly OktaEventJobData[]): Promise<void> {
    const jobs = events.map((event) => ({
      name: event.eventType,
      data: event,
      opts: this.jobOptions(event),
    }));
    await this.holder.run((queue) => queue.addBulk(jobs));
    // The delivery is answered 200 only once the replicas hold it (REDIS_MIN_REPLICAS).
    await replicated(this.connection);
  }

  private jobOptions(event: OktaEventJobData): JobsOptions {
    return {
      jobId: oktaEventJobId(event.uuid),
      attempts: this.attempts,
      backoff: { type: 'custom' },
      // Kept an hour, so that Okta's redeliveries are dropped here, before any work.
      removeOnComplete: { age: 3600, count: 100_000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
    };
  }

  async close(): Promise<void> {
    await this.holder.close();
  }
}

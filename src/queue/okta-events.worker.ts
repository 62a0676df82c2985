import { Queue, Worker } from 'bullmq';
import { isBridgeError } from '../domain/errors.js';
import type { Logger } from '../ops/logger.js';
import type { RedisClient } from '../store/redis-connection.js';
import { backoffDelay } from './backoff.js';
import { OKTA_EVENTS_QUEUE, type OktaEventJobData, type OktaEventOutcome } from './okta-events-job.js';

export interface OktaEventWorkerDeps {
  /** Processes one event (sources/okta/okta-event.processor.ts). */
  process(event: OktaEventJobData): Promise<OktaEventOutcome>;
  logger: Logger;
}

export interface OktaEventWorkerSettings {
  queuePrefix: string;
  concurrency?: number;
  /** Base of the exponential back-off when Okta's API fails (5xx, network). */
  backoffMs?: number;
}

export const OKTA_WORKER_DEFAULTS = { concurrency: 4, backoffMs: 1000 } as const;

export interface OktaEventWorker {
  readonly worker: Worker<OktaEventJobData>;
  close(): Promise<void>;
}

/**
 * The worker edge of the okta-events queue: runs the processor and translates its outcome for
 * BullMQ. Okta's 429 (`rate_limited`) pauses the whole queue until `X-Rate-Limit-Reset` without
 * spending an attempt — the limit is Okta's, per org, not per job; other retryable errors back off.
 */
export function startOktaEventWorker(
  connection: RedisClient,
  deps: OktaEventWorkerDeps,
  settings: OktaEventWorkerSettings,
): OktaEventWorker {
  const { concurrency, backoffMs } = { ...OKTA_WORKER_DEFAULTS, ...settings };
  const queue = new Queue<OktaEventJobData>(OKTA_EVENTS_QUEUE, { connection, prefix: settings.queuePrefix });
  queue.on('error', () => undefined);
  const worker = new Worker<OktaEventJobData, OktaEventOutcome>(
    OKTA_EVENTS_QUEUE,
    async (job) => {
      try {
        return await deps.process(job.data);
      } catch (error) {
        if (!isBridgeError(error, 'rate_limited')) throw error;
        deps.logger.warn({ waitMs: error.retryAfterMs }, 'Okta API rate limit: okta events paused');
        await queue.rateLimit(error.retryAfterMs ?? 5000);
        throw Worker.RateLimitError();
      }
    },
    {
      connection,
      prefix: settings.queuePrefix,
      concurrency,
      settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, backoffMs) },
    },
  );
  worker.on('error', (error) => deps.logger.warn({ err: error.message }, 'okta event worker error'));
  worker.on('failed', (job, error) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      deps.logger.error(
        { uuid: job.data.uuid, eventType: job.data.eventType, err: error.message },
        'okta event failed',
      );
    }
  });
  return {
    worker,
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}

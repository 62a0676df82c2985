import { Queue, Worker, type Job } from 'bullmq';
import { isBridgeError } from '../domain/errors.js';
import type { Logger } from '../ops/logger.js';
import type { DesiredStateApi } from '../sources/desired-state.api.js';
import type { OktaDirectory } from '../sources/webhooks/okta/okta-api.client.js';
import { changesForOktaEvent, type OktaFacts } from '../sources/webhooks/okta/okta-event.changes.js';
import type { RedisClient } from '../store/redis-connection.js';
import { backoffDelay } from './backoff.js';
import { OKTA_EVENTS_QUEUE, type OktaEventJobData } from './okta-events-job.js';

/** Okta event uuids are remembered this long by the store (a redelivery is skipped). */
export const OKTA_EVENT_TTL_SECONDS = 24 * 3600;

export interface OktaEventWorkerDeps {
  /** The desired-state API on the worker's connection. */
  api: DesiredStateApi;
  /** Okta's API when OKTA_ORG_URL and OKTA_API_TOKEN are set; without it, events carry the data. */
  okta?: OktaDirectory;
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

export interface OktaEventOutcome {
  result: string;
  reason?: string;
}

/**
 * Runs the okta-events jobs: gathers what the event needs (Okta's current profile with enrichment,
 * else the desired state), applies the change through the DesiredStateApi with the event's `uuid`
 * (so a redelivery changes nothing) and its `published` time (so an older event does not undo a
 * newer one). Okta's 429 pauses the whole queue until `X-Rate-Limit-Reset` without spending an
 * attempt — the limit is Okta's, per org, not per job.
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
    (job) => processEvent(deps, queue, job),
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

async function processEvent(
  deps: OktaEventWorkerDeps,
  queue: Queue<OktaEventJobData>,
  job: Job<OktaEventJobData>,
): Promise<OktaEventOutcome> {
  const event = job.data;
  const facts = await gatherFacts(deps, event, queue);
  const plan = changesForOktaEvent(event, facts);
  const about = { uuid: event.uuid, eventType: event.eventType };
  if ('skip' in plan) {
    deps.logger.info({ ...about, reason: plan.skip }, 'okta event skipped');
    return { result: 'skipped', reason: plan.skip };
  }
  const applied = await deps.api.apply(plan.changes, {
    events: { source: 'okta', ids: [event.uuid], ttlSeconds: OKTA_EVENT_TTL_SECONDS },
  });
  const result = applied.duplicates.length > 0 ? 'duplicate' : (applied.results[0] ?? 'unchanged');
  deps.logger.info({ ...about, result }, `okta ${event.eventType} ${result}`);
  return { result };
}

/**
 * Okta's answers when enrichment is configured. A rate limit pauses the queue (no attempt spent);
 * an Okta API that is down fails the attempt (retried with back-off); a refused token or an odd
 * answer is logged and the event's own data is used instead, so events keep flowing.
 */
async function gatherFacts(
  deps: OktaEventWorkerDeps,
  event: OktaEventJobData,
  queue: Queue<OktaEventJobData>,
): Promise<OktaFacts> {
  if (!deps.okta) return localFacts(deps, event);
  try {
    return await oktaFacts(deps.okta, event);
  } catch (error) {
    if (isBridgeError(error, 'rate_limited')) {
      deps.logger.warn({ waitMs: error.retryAfterMs }, 'Okta API rate limit: okta events paused');
      await queue.rateLimit(error.retryAfterMs ?? 5000);
      throw Worker.RateLimitError();
    }
    if (!isBridgeError(error) || error.retryable) throw error;
    deps.logger.error({ uuid: event.uuid, err: error.message }, 'Okta API refused; using the event data');
    return localFacts(deps, event);
  }
}

async function oktaFacts(okta: OktaDirectory, event: OktaEventJobData): Promise<OktaFacts> {
  const { user, group } = event;
  switch (kindOf(event)) {
    case 'user':
      return user ? { oktaUser: (await okta.getUser(user.id)) ?? null } : {};
    case 'group':
      return group ? { oktaGroup: (await okta.getGroup(group.id)) ?? null } : {};
    case 'membership': {
      if (!user || !group) return {};
      const groups = await okta.listUserGroups(user.id);
      return { member: (groups ?? []).some((g) => g.id === group.id) };
    }
    default:
      return {};
  }
}

async function localFacts(deps: OktaEventWorkerDeps, event: OktaEventJobData): Promise<OktaFacts> {
  if (kindOf(event) !== 'user' || !event.user) return {};
  const current = await deps.api.store.getUser(event.user.id);
  return current ? { current } : {};
}

function kindOf(event: OktaEventJobData): 'user' | 'group' | 'membership' | 'delete' {
  if (event.eventType.includes('.delete')) return 'delete';
  if (event.eventType.startsWith('group.user_membership.')) return 'membership';
  if (event.eventType.startsWith('group.')) return 'group';
  return 'user';
}

import type { QueueDepth, QueueDepths } from '../admin/status.router.js';
import type { StoreSide } from './store-side.js';

/** The job states reported for every queue, by /admin/status and scim_bridge_queue_jobs. */
export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

interface CountableQueue {
  readonly name: string;
  getJobCounts(...types: QueueState[]): Promise<Record<string, number>>;
  getRateLimitTtl(): Promise<number>;
}

/** Reads the depth of the bridge's queues: reconcile, sync and okta-events. */
export function queueDepthReader(store: StoreSide): () => Promise<QueueDepths> {
  return async () => {
    const queues: CountableQueue[] = [store.producer.queue, store.syncs.queue, store.oktaEvents.queue];
    const depths = await Promise.all(queues.map(depthOf));
    return Object.fromEntries(queues.map((q, i) => [q.name, depths[i] as QueueDepth]));
  };
}

async function depthOf(queue: CountableQueue): Promise<QueueDepth> {
  const [raw, ttl] = await Promise.all([queue.getJobCounts(...QUEUE_STATES), queue.getRateLimitTtl()]);
  const counts = Object.fromEntries(QUEUE_STATES.map((s) => [s, raw[s] ?? 0])) as Record<QueueState, number>;
  return { counts, ...(ttl > 0 ? { pausedForMs: ttl } : {}) };
}

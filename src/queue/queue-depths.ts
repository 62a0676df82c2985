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

export interface CountableQueue {
  readonly name: string;
  getJobCounts(...types: QueueState[]): Promise<Record<string, number>>;
  getRateLimitTtl(): Promise<number>;
}

export interface QueueDepth {
  /** Jobs by state: waiting, active, delayed, prioritized, waiting-children, completed, failed. */
  counts: Record<string, number>;
  /** Set while processing is paused for the target (rate limit, outage, refused token): ms left. */
  pausedForMs?: number;
}

export type QueueDepths = Record<string, QueueDepth>;

/**
 * Reads the depth of the bridge's queues (reconcile, sync and okta-events), each read afresh from
 * its holder, since a producer may replace a queue whose set-up failed.
 */
export function queueDepthReader(queues: () => readonly CountableQueue[]): () => Promise<QueueDepths> {
  return async () => {
    const list = queues();
    const depths = await Promise.all(list.map(depthOf));
    return Object.fromEntries(list.map((q, i) => [q.name, depths[i] as QueueDepth]));
  };
}

async function depthOf(queue: CountableQueue): Promise<QueueDepth> {
  const [raw, ttl] = await Promise.all([queue.getJobCounts(...QUEUE_STATES), queue.getRateLimitTtl()]);
  const counts = Object.fromEntries(QUEUE_STATES.map((s) => [s, raw[s] ?? 0])) as Record<QueueState, number>;
  return { counts, ...(ttl > 0 ? { pausedForMs: ttl } : {}) };
}

import { setPlatformHealth, type Metrics } from '../ops/metrics.js';
import { ConflictStore } from '../store/conflicts.store.js';
import { StatusQueries } from '../store/status.queries.js';
import { SyncHistoryQueries } from '../store/sync-history.queries.js';
import { queueDepthReader, QUEUE_STATES } from '../queue/queue-depths.js';
import type { StoreSide } from './store-side.js';

/**
 * Refreshes the gauges read from Redis before /metrics answers: queue depths, failures, open
 * conflicts by kind, the target's health as the workers last saw it, the time of the last
 * completed full sync, and how long ago each pulled input (`pulled`) last read its source. Every process exports the same values (the alert rules take the max over
 * processes). When Redis cannot be read the gauges keep their last values and the scrape still
 * answers (process metrics stay useful; /readyz tells that Redis is down).
 */
export function metricsRefresher(
  metrics: Metrics,
  store: StoreSide,
  pulled: readonly string[] = [],
): () => Promise<void> {
  const depths = queueDepthReader(() => store.queues());
  const counts = new StatusQueries(store.redis, store.keys);
  const history = new SyncHistoryQueries(store.redis, store.keys);
  const conflicts = new ConflictStore(store.redis, store.keys);
  return async () => {
    try {
      const [queues, failures, health, last, open, fresh] = await Promise.all([
        depths(),
        counts.failureCount(),
        store.health.read(),
        history.lastFullSync(),
        conflicts.openCounts(),
        store.sync.freshness.read(pulled),
      ]);
      const now = store.clock.now();
      for (const [input, seen] of fresh)
        if (seen.readAt !== undefined)
          metrics.inputLag.set({ input }, Math.max(0, (now - seen.readAt) / 1000));
      for (const [queue, depth] of Object.entries(queues)) {
        for (const state of QUEUE_STATES) metrics.queueJobs.set({ queue, state }, depth.counts[state] ?? 0);
      }
      metrics.failures.set(failures);
      for (const [kind, count] of Object.entries(open)) metrics.conflicts.set({ kind }, count);
      setPlatformHealth(metrics, health.state);
      if (last) metrics.lastFullSync.set(last.finishedAt / 1000);
    } catch {
      // Keep the last values; see above.
    }
  };
}

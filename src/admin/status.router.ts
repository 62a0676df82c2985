import { Router } from 'express';
import type { QueueDepths } from '../queue/queue-depths.js';
import type { SyncService } from '../sync/sync.service.js';
import type { StatusQueries } from '../store/status.queries.js';
import type { LastFullSync } from '../store/sync-history.queries.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import type { PlatformHealthRecord } from '../store/platform-health.store.js';
import type { InputStatus, Status, TargetHealth } from './schemas/status.schema.js';
import type { RedisTopology } from '../store/redis-topology.js';
import { syncView } from './sync.router.js';
import { redact } from './views.js';

export interface AdminStatusDeps {
  queueDepths: () => Promise<QueueDepths>;
  counts: StatusQueries;
  /** The target's health as the workers last recorded it (shared through Redis). */
  health: () => Promise<PlatformHealthRecord>;
  syncs: SyncService;
  lastFullSync: () => Promise<LastFullSync | undefined>;
  /** Each input: what it can do and how fresh it is. */
  inputs: () => Promise<InputStatus[]>;
  /** The Redis topology and the replica acknowledgement setting (store/redis-topology.ts). */
  redis: () => Promise<RedisTopology>;
}

/** GET /admin/status: is it healthy, what is queued, what did the last sync do (SPEC §4). */
export function adminStatusRouter(deps: AdminStatusDeps): Router {
  const router = Router();
  router.get('/status', async (_req, res) => {
    const [queues, counts, health, recent, last, inputs, redis] = await Promise.all([
      deps.queueDepths(),
      deps.counts.counts(),
      deps.health(),
      deps.syncs.list(1),
      deps.lastFullSync(),
      deps.inputs(),
      deps.redis(),
    ]);
    const active = await activeSyncs(deps.syncs);
    const lastFull = last ? await deps.syncs.get(last.jobId) : undefined;
    const pausedForMs = queues.reconcile?.pausedForMs;
    const status: Status = {
      status: health.state === 'reachable' ? 'ok' : 'degraded',
      target: targetView(health, pausedForMs),
      // Every queue counts every state of QUEUE_STATES (queue/queue-depths.ts); reconcile and sync are always there.
      queues: Object.fromEntries(
        Object.entries(queues).map(([name, depth]) => [name, depth.counts]),
      ) as Status['queues'],
      identities: { users: counts.users, groups: counts.groups },
      failures: counts.failures,
      pending: counts.pending,
      conflicts: counts.conflicts,
      owners: counts.owners,
      inputs,
      activeSync: viewOrNull(active.find((r) => r.state === 'awaiting-approval') ?? active[0]),
      activeSyncs: active.map((record) => syncView(record)),
      lastSync: viewOrNull(recent[0]),
      lastFullSync: viewOrNull(lastFull),
      redis,
    };
    res.json(status);
  });
  return router;
}

/** The syncs running or held, one per input's slot. */
async function activeSyncs(syncs: SyncService): Promise<SyncRecord[]> {
  const records = await Promise.all((await syncs.records.activeSyncs()).map((id) => syncs.get(id)));
  return records.filter((record): record is SyncRecord => record !== undefined);
}

function viewOrNull(record: SyncRecord | undefined) {
  return record ? syncView(record) : null;
}

/** The health record says since the epoch when nothing was ever recorded: shown as null. */
function targetView(health: PlatformHealthRecord, pausedForMs: number | undefined): TargetHealth {
  const since = Date.parse(health.since);
  return {
    state: health.state,
    since: Number.isFinite(since) && since > 0 ? health.since : null,
    detail: health.detail ? (redact(health.detail) as string) : null,
    /** Processing is paused (probe back-off, Retry-After) for this long still. */
    pausedForMs: pausedForMs ?? 0,
  };
}

import type { Queue } from 'bullmq';
import type { Router } from 'express';
import type { Config } from '../config/schema.js';
import type { IdentityKey } from '../domain/identity.js';
import { queueDepthReader } from '../queue/queue-depths.js';
import type { AdminSessionStore } from '../store/admin-session.store.js';
import type { ConflictStore } from '../store/conflicts.store.js';
import type { FailureQueries } from '../store/failures.queries.js';
import type { IdentityNameQueries } from '../store/identity-names.queries.js';
import type { IdentityTraceQueries } from '../store/identity-trace.queries.js';
import type { StatusQueries } from '../store/status.queries.js';
import type { SyncHistoryQueries } from '../store/sync-history.queries.js';
import type { PlatformHealthRecord } from '../store/platform-health.store.js';
import type { RedisTopology } from '../store/redis-topology.js';
import type { SyncService } from '../sync/sync.service.js';
import { adminRouter } from './admin.router.js';
import type { InputStatus } from './schemas/status.schema.js';
import { adminConflictsRouter } from './conflicts.router.js';
import { adminFailuresRouter } from './failures.router.js';
import { adminIdentitiesRouter } from './identities.router.js';
import { adminOpenApiRouter } from './openapi.js';
import { adminPlatformCopyRouter, type PlatformRead } from './platform-copy.router.js';
import { adminProvisionRouter, type AdminProvisionDeps } from './provision.router.js';
import { adminQueuesRouter } from './queues.router.js';
import { adminStatusRouter } from './status.router.js';
import { adminSyncRouter } from './sync.router.js';
import { adminSyncChangesRouter } from './sync-changes.router.js';
import { adminSyncPreviewRouter } from './sync-preview.router.js';
import { adminSyncEventsRouter } from './sync-events.router.js';
import { adminUiRouter } from './ui/admin-ui.router.js';

/**
 * The store's reads and writes the admin feature uses, on a producer connection: they fail fast
 * when Redis is down, so routes answer 503.
 */
export interface AdminStores {
  history: SyncHistoryQueries;
  names: IdentityNameQueries;
  counts: StatusQueries;
  traces: IdentityTraceQueries;
  failures: FailureQueries;
  conflicts: ConflictStore;
  sessions: AdminSessionStore;
}

/** What the admin feature reads and drives. */
export interface AdminDeps {
  config: Config;
  stores: AdminStores;
  syncs: SyncService;
  /** The target's health as the workers last recorded it. */
  health: () => Promise<PlatformHealthRecord>;
  /**
   * Enqueues reconcile runs now (an operator's retry). The producer itself, not a desired-state
   * write: a retry that cannot be queued must answer 503, not be dropped (failed identities carry
   * no dirty mark for the sweep).
   */
  enqueue: (keys: readonly IdentityKey[]) => Promise<void>;
  /** The bridge's queues, read afresh (a producer may replace a queue whose set-up failed). */
  queues: () => Queue[];
  /** ADMIN_TOKEN, read per request so a rotated secret applies at once. */
  token: () => string;
  /** The Redis topology and the replica acknowledgement setting. */
  redis: () => Promise<RedisTopology>;
  /** Each input: what it can do and how fresh it is (admin/input-status.ts). */
  inputs: () => Promise<InputStatus[]>;
  /** Reads an identity's resource from the platform (the dashboard's platform copy). */
  platform?: PlatformRead;
  /** Provision on demand: one identity read from its input now, applied alone unless a dry run. */
  provision?: AdminProvisionDeps['provision'];
}

/** The routers mounted under /admin (behind the admin token). */
export function adminRouters(deps: AdminDeps): Router[] {
  const { config, stores } = deps;
  const { history, names, traces } = stores;
  return [
    adminSyncRouter({
      syncs: deps.syncs,
      snapshotLimitBytes: config.http.snapshotLimitBytes,
      snapshotStreamLimitBytes: config.http.snapshotStreamLimitBytes,
    }),
    adminStatusRouter({
      queueDepths: queueDepthReader(deps.queues),
      counts: stores.counts,
      health: deps.health,
      syncs: deps.syncs,
      lastFullSync: () => history.lastFullSync(),
      inputs: deps.inputs,
      redis: deps.redis,
    }),
    adminIdentitiesRouter({ traces, names }),
    adminProvisionRouter({
      ...(deps.provision ? { provision: deps.provision } : {}),
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
    adminFailuresRouter({
      failures: stores.failures,
      enqueue: deps.enqueue,
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
    adminConflictsRouter({
      conflicts: stores.conflicts,
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
    adminOpenApiRouter(),
    adminSyncChangesRouter({ syncs: deps.syncs, names }),
    adminSyncPreviewRouter({ syncs: deps.syncs }),
    adminSyncEventsRouter({ syncs: deps.syncs }),
    adminPlatformCopyRouter({
      traces,
      names,
      ...(deps.platform ? { platform: deps.platform } : {}),
      now: () => Date.now(),
    }),
  ];
}

/**
 * Everything the HTTP roles serve under /admin: the dashboard's static files at /admin/ui (no data,
 * so no token: it is the sign-in page), bull-board at /admin/queues (read-only; the token or the
 * session cookie the dashboard obtains with it), then the admin API behind the token.
 */
export function adminRoutes(deps: AdminDeps): { path: string; router: Router }[] {
  const { token } = deps;
  return [
    { path: '/admin/ui', router: adminUiRouter(token) },
    {
      path: '/admin/queues',
      router: adminQueuesRouter({
        token,
        queues: deps.queues(),
        basePath: '/admin/queues',
        sessions: deps.stores.sessions,
        alwaysSecure: deps.config.http.publicUrl.startsWith('https:'),
      }),
    },
    { path: '/admin', router: adminRouter(token, adminRouters(deps)) },
  ];
}

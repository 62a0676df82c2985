import type { Queue } from 'bullmq';
import type { Router } from 'express';
import type { Config } from '../config/schema.js';
import type { IdentityKey } from '../domain/identity.js';
import { queueDepthReader } from '../queue/queue-depths.js';
import { AdminSessionStore } from '../store/admin-session.store.js';
import { ConflictStore } from '../store/conflicts.store.js';
import { FailureQueries } from '../store/failures.queries.js';
import { IdentityNameQueries } from '../store/identity-names.queries.js';
import { IdentityTraceQueries } from '../store/identity-trace.queries.js';
import type { Keys } from '../store/keys.js';
import type { RedisClock } from '../store/redis-clock.js';
import type { RedisClient } from '../store/redis-connection.js';
import { describeRedis } from '../store/redis-topology.js';
import { StatusQueries } from '../store/status.queries.js';
import { SyncHistoryQueries } from '../store/sync-history.queries.js';
import type { PlatformHealthRecord } from '../store/platform-health.store.js';
import type { SyncService } from '../sync/sync.service.js';
import { adminRouter } from './admin.router.js';
import { adminConflictsRouter } from './conflicts.router.js';
import { adminFailuresRouter } from './failures.router.js';
import { adminIdentitiesRouter } from './identities.router.js';
import { adminOpenApiRouter } from './openapi.js';
import { adminPlatformCopyRouter, type PlatformRead } from './platform-copy.router.js';
import { adminQueuesRouter } from './queues.router.js';
import { adminStatusRouter } from './status.router.js';
import { adminSyncRouter } from './sync.router.js';
import { adminSyncChangesRouter } from './sync-changes.router.js';
import { adminSyncEventsRouter } from './sync-events.router.js';
import { adminUiRouter } from './ui/admin-ui.router.js';

/** What the admin feature reads and drives. */
export interface AdminDeps {
  config: Config;
  /** A producer connection: fails fast when Redis is down, so routes answer 503. */
  redis: RedisClient;
  keys: Keys;
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
  /** The shared (Redis) clock, which stamps conflict resolutions. */
  clock?: Pick<RedisClock, 'now'>;
  /** Reads an identity's resource from the platform (the dashboard's platform copy). */
  platform?: PlatformRead;
}

/** The routers mounted under /admin (behind the admin token). */
export function adminRouters(deps: AdminDeps): Router[] {
  const { config, redis, keys } = deps;
  const history = new SyncHistoryQueries(redis, keys);
  const names = new IdentityNameQueries(redis, keys);
  return [
    adminSyncRouter({
      syncs: deps.syncs,
      snapshotLimitBytes: config.http.snapshotLimitBytes,
      snapshotStreamLimitBytes: config.http.snapshotStreamLimitBytes,
    }),
    adminStatusRouter({
      queueDepths: queueDepthReader(deps.queues),
      counts: new StatusQueries(redis, keys),
      health: deps.health,
      syncs: deps.syncs,
      lastFullSync: () => history.lastFullSync(),
      redis: () => describeRedis(redis, config.redis),
    }),
    adminIdentitiesRouter({ traces: new IdentityTraceQueries(redis, keys), names }),
    adminFailuresRouter({
      failures: new FailureQueries(redis, keys),
      enqueue: deps.enqueue,
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
    adminConflictsRouter({
      conflicts: new ConflictStore(redis, keys, deps.clock),
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
    adminOpenApiRouter(),
    adminSyncChangesRouter({ syncs: deps.syncs, names }),
    adminSyncEventsRouter({ syncs: deps.syncs }),
    adminPlatformCopyRouter({
      traces: new IdentityTraceQueries(redis, keys),
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
        sessions: new AdminSessionStore(deps.redis, deps.keys),
        alwaysSecure: deps.config.http.publicUrl.startsWith('https:'),
      }),
    },
    { path: '/admin', router: adminRouter(token, adminRouters(deps)) },
  ];
}

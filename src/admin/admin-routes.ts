import type { Router } from 'express';
import type { Config } from '../config/schema.js';
import { validateSnapshot } from '../domain/snapshot.js';
import { adminFailuresRouter } from './failures.router.js';
import { adminIdentitiesRouter } from './identities.router.js';
import { adminOpenApiRouter } from './openapi.js';
import { adminQueuesRouter } from './queues.router.js';
import { adminStatusRouter } from './status.router.js';
import { adminSyncRouter } from './sync.router.js';
import { adminRouter } from './admin.router.js';
import { adminUiRouter } from './ui/admin-ui.router.js';
import { FailureQueries } from '../store/failures.queries.js';
import { IdentityTraceQueries } from '../store/identity-trace.queries.js';
import { StatusQueries } from '../store/status.queries.js';
import { SyncHistoryQueries } from '../store/sync-history.queries.js';
import { queueDepthReader } from '../wiring/queue-depths.js';
import type { StoreSide } from '../wiring/store-side.js';

/** The routers mounted under /admin (behind the admin token). */
export function adminRouters(config: Config, store: StoreSide): Router[] {
  const history = new SyncHistoryQueries(store.redis, store.keys);
  return [
    adminSyncRouter({
      syncs: store.syncs,
      validateSnapshot,
      snapshotLimitBytes: config.http.snapshotLimitBytes,
    }),
    adminStatusRouter({
      queueDepths: queueDepthReader(store),
      counts: new StatusQueries(store.redis, store.keys),
      health: () => store.health.read(),
      syncs: store.syncs,
      lastFullSync: () => history.lastFullSync(),
    }),
    adminIdentitiesRouter({ traces: new IdentityTraceQueries(store.redis, store.keys) }),
    adminFailuresRouter({
      failures: new FailureQueries(store.redis, store.keys),
      // The producer itself, not DesiredStateApi.enqueue: an operator's retry that cannot be queued
      // must answer 503, not be dropped (failed identities carry no dirty mark for the sweep).
      enqueue: (keys) => store.producer.enqueue(keys),
      bodyLimitBytes: config.http.bodyLimitBytes,
    }),
    adminOpenApiRouter(),
  ];
}

/**
 * Everything the HTTP roles serve under /admin: the dashboard's static files at /admin/ui (no data,
 * so no token: it is the sign-in page), bull-board at /admin/queues (read-only; the token or the
 * session cookie the dashboard obtains with it), then the admin API behind the token.
 */
export function adminRoutes(
  config: Config,
  store: StoreSide,
  token: () => string = () => config.inbound.adminToken,
): { path: string; router: Router }[] {
  const queues = [store.producer.queue, store.syncs.queue, store.oktaEvents.queue];
  return [
    { path: '/admin/ui', router: adminUiRouter(token) },
    { path: '/admin/queues', router: adminQueuesRouter({ token, queues, basePath: '/admin/queues' }) },
    { path: '/admin', router: adminRouter(token, adminRouters(config, store)) },
  ];
}

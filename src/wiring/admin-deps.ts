import type { AdminDeps } from '../admin/admin-routes.js';
import type { Config } from '../config/schema.js';
import type { PlatformReader } from './platform-reader.js';
import type { StoreSide } from './store-side.js';

/** What the admin feature needs, taken from the HTTP side's store connection. */
export function adminDeps(
  config: Config,
  store: StoreSide,
  token: () => string = () => config.inbound.adminToken,
  platform?: PlatformReader,
): AdminDeps {
  return {
    config,
    redis: store.redis,
    keys: store.keys,
    syncs: store.syncs,
    health: () => store.health.read(),
    enqueue: (keys) => store.producer.enqueue(keys),
    queues: () => store.queues(),
    token,
    clock: store.clock,
    ...(platform ? { platform: (kind, targetId) => platform.read(kind, targetId) } : {}),
  };
}

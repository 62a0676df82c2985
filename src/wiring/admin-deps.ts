import type { AdminDeps } from '../admin/admin-routes.js';
import { inputStatuses } from '../admin/input-status.js';
import type { Inputs } from '../domain/input.js';
import { createInputs } from '../sources/registry.js';
import { inputPulls } from './input-pulls.js';
import { AdminSessionStore } from '../store/admin-session.store.js';
import { ConflictStore } from '../store/conflicts.store.js';
import { FailureQueries } from '../store/failures.queries.js';
import { IdentityNameQueries } from '../store/identity-names.queries.js';
import { IdentityTraceQueries } from '../store/identity-trace.queries.js';
import { describeRedis } from '../store/redis-topology.js';
import { StatusQueries } from '../store/status.queries.js';
import { SyncHistoryQueries } from '../store/sync-history.queries.js';
import type { Config } from '../config/schema.js';
import type { PlatformReader } from './platform-reader.js';
import { provisionService } from './provision-deps.js';
import type { StoreSide } from './store-side.js';

/** What the admin feature needs, taken from the HTTP side's store connection. */
export function adminDeps(
  config: Config,
  store: StoreSide,
  token: () => string = () => config.inbound.adminToken,
  platform?: PlatformReader,
  inputs: Inputs = createInputs(config),
): AdminDeps {
  const pulls = inputPulls(inputs);
  const { redis, keys } = store;
  return {
    config,
    stores: {
      history: new SyncHistoryQueries(redis, keys),
      names: new IdentityNameQueries(redis, keys),
      counts: new StatusQueries(redis, keys, store.clock),
      traces: new IdentityTraceQueries(redis, keys),
      failures: new FailureQueries(redis, keys),
      conflicts: new ConflictStore(redis, keys, store.clock),
      sessions: new AdminSessionStore(redis, keys),
    },
    syncs: store.syncs,
    health: () => store.health.read(),
    enqueue: (keys) => store.producer.enqueue(keys),
    queues: () => store.queues(),
    token,
    redis: () => describeRedis(redis, config.redis),
    inputs: () => inputStatuses(inputs, store.sync.freshness, pulls, store.clock.now()),
    ...(platform ? platformFeatures(store, inputs, platform) : {}),
  };
}

/** What the admin feature does with the platform: the platform copy, provisioning on demand. */
function platformFeatures(
  store: StoreSide,
  inputs: Inputs,
  platform: PlatformReader,
): Pick<AdminDeps, 'platform' | 'provision'> {
  const provisioning = provisionService(store, inputs, platform);
  return {
    platform: (kind, targetId) => platform.read(kind, targetId),
    provision: (request) => provisioning.provision(request),
  };
}

import type { Queue } from 'bullmq';
import type { Config } from '../config/schema.js';
import { directoryOwner } from '../domain/desired-change.js';
import type { Logger } from '../ops/logger.js';
import { OktaEventProducer } from '../queue/okta-events.producer.js';
import { ReconcileProducer } from '../queue/reconcile.producer.js';
import { SyncService } from '../sync/sync.service.js';
import { DesiredStateApi } from '../sources/desired-state.api.js';
import { DesiredStateQueries } from '../store/desired-state.queries.js';
import { DesiredStateStore } from '../store/desired-state.store.js';
import { createKeys, type Keys } from '../store/keys.js';
import { RedisClock } from '../store/redis-clock.js';
import {
  closeRedis,
  createRedis,
  untilReady,
  type RedisClient,
  type RedisRole,
} from '../store/redis-connection.js';
import { ReconcileStateStore } from '../store/reconcile-state.store.js';
import { logPrimarySwitches } from '../store/redis-topology.js';
import { SyncRecordStore } from '../store/sync-record.store.js';
import { PlatformHealthStore } from '../store/platform-health.store.js';
import { SyncStore } from '../store/sync.store.js';
import type { Inputs } from '../domain/input.js';
import { createInputs } from '../sources/registry.js';
import { migrateOwnersAtStart } from './migrate-owners.js';

/** The desired state and its queue as one side of the bridge sees them, on one Redis connection. */
export interface StoreSide {
  redis: RedisClient;
  keys: Keys;
  clock: RedisClock;
  desired: DesiredStateStore;
  state: ReconcileStateStore;
  health: PlatformHealthStore;
  producer: ReconcileProducer;
  api: DesiredStateApi;
  syncs: SyncService;
  /** The reads of the bridge's SCIM server: what the IdP pushed (owner `scim`). */
  scimQueries: DesiredStateQueries;
  /** The store's port for full syncs (records, each run's work, the desired and reconcile state). */
  sync: SyncStore;
  /** Okta Event Hook deliveries, queued for the okta-events worker. */
  oktaEvents: OktaEventProducer;
  /** The bridge's queues (reconcile, sync, okta-events), as their producers hold them now. */
  queues(): Queue[];
  close(): Promise<void>;
}

/**
 * `producer` for the HTTP side (fails fast: routes answer 503 when Redis is down), `worker` for the
 * workers (waits for Redis to come back).
 */
export async function createStoreSide(
  config: Config,
  role: RedisRole,
  logger: Logger,
  inputs: Inputs = createInputs(config),
): Promise<StoreSide> {
  const redis = createRedis(config.redis, role, `scim-bridge-${role}`);
  redis.on('error', (error: Error) => logger.debug({ err: error.message, role }, 'redis connection error'));
  // Every process has one producer side: a Sentinel failover is logged once per process.
  if (role === 'producer') logPrimarySwitches(redis, config.redis, logger);
  // A producer connection refuses commands until connected: give it a moment before serving, but
  // start anyway when Redis is down (/readyz then says so).
  await untilReady(redis, 5000).catch(() => logger.warn({ role }, 'Redis is not reachable yet'));
  const keys = createKeys(config.redis.keyPrefix);
  const clock = new RedisClock(redis);
  await clock.start();
  const producer = new ReconcileProducer(redis, {
    attempts: config.reconcile.attempts,
    queuePrefix: keys.queuePrefix(),
  });
  // Writes that name no input (the full sync's) and identities stored before owners existed belong
  // to the configured directory (SPEC §6, Ownership).
  const directory = directoryOwner(config.directory.name);
  const stopMigration = await migrateOwnersAtStart(redis, keys, directory, logger);
  const desired = new DesiredStateStore(redis, keys, clock, directory);
  const api = new DesiredStateApi(desired);
  const state = new ReconcileStateStore(redis, keys, clock);
  const records = await syncRecords(redis, keys, clock, logger, directory);
  const sync = new SyncStore(redis, keys, records, desired, state);
  const readable = [...inputs.readable().keys()];
  const syncs = new SyncService(redis, keys.queuePrefix(), sync, { readable, directory });
  const oktaEvents = new OktaEventProducer(redis, {
    queuePrefix: keys.queuePrefix(),
    seen: { freshness: sync.freshness, now: () => clock.now() },
  });
  return {
    redis,
    keys,
    clock,
    desired,
    state,
    sync,
    scimQueries: new DesiredStateQueries(redis, keys, { owner: 'scim' }),
    health: new PlatformHealthStore(redis, keys),
    producer,
    api,
    syncs,
    oktaEvents,
    queues: () => [producer.queue, syncs.queue, oktaEvents.queue],
    close: async () => {
      stopMigration();
      clock.stop();
      await oktaEvents.close().catch(() => undefined);
      await producer.close().catch(() => undefined);
      await syncs.close().catch(() => undefined);
      await closeRedis(redis);
    },
  };
}

/** The sync records, with a bridge's single active sync from before per-input slots moved into its slot. */
async function syncRecords(
  redis: RedisClient,
  keys: Keys,
  clock: RedisClock,
  logger: Logger,
  directory: string,
): Promise<SyncRecordStore> {
  const records = new SyncRecordStore(redis, keys, clock);
  await records.migrateSlots(directory).catch(() => logger.warn('sync slots not migrated: Redis is down'));
  return records;
}

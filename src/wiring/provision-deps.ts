import type { Inputs } from '../domain/input.js';
import { ReconcileProgressQueries } from '../store/reconcile-progress.queries.js';
import { ProvisionService } from '../sync/provision/provision.service.js';
import type { KnownIdentity, Observed } from '../sync/provision/provision-types.js';
import type { PlatformReader } from './platform-reader.js';
import type { StoreSide } from './store-side.js';

/**
 * Provision on demand on the HTTP side: the configuration's inputs, the HTTP side's own platform
 * client for the look-ups (platform-reader.ts: a few requests at a time, through the shared gate,
 * with a deadline), and the store's reads and the desired-state API on the producer connection.
 */
export function provisionService(
  store: StoreSide,
  inputs: Inputs,
  platform: PlatformReader,
): ProvisionService {
  const progress = new ReconcileProgressQueries(store.redis, store.keys);
  return new ProvisionService({
    inputs,
    platform: {
      get: async (kind, targetId) => (await platform.read(kind, targetId)) as Observed | undefined,
      findBy: async (kind, attribute, value) =>
        (await platform.find(kind, attribute, value)) as unknown as Observed[],
    },
    store: {
      known: async (kind, id): Promise<KnownIdentity> => {
        const state = kind === 'user' ? await store.state.userState(id) : await store.state.groupState(id);
        return {
          ...(state.desired ? { desired: state.desired } : {}),
          ...(state.targetId ? { targetId: state.targetId } : {}),
          managed: state.managed,
          ...(state.owner ? { owner: state.owner } : {}),
          ...(state.parked ? { parked: state.parked } : {}),
        };
      },
      holderOf: (kind, targetId) => store.state.sourceIdForTarget(kind, targetId),
      userTargets: (ids) => store.state.userTargets(ids),
      progress: (keys) => progress.progress(keys),
      apply: (changes, options) => store.api.apply(changes, options),
      enqueue: (keys) => store.producer.enqueue(keys),
      now: () => store.clock.now(),
    },
  });
}

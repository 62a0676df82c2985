import type { Config } from '../config/schema.js';
import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import type { Logger } from '../ops/logger.js';
import type { Metrics } from '../ops/metrics.js';
import type { PlatformClient } from '../platform/platform.client.js';
import type { StoreSide } from './store-side.js';
import { createPlatformClient } from './worker-side.js';

/** Reads one resource from the platform for the admin API (the identity view's platform copy). */
export interface PlatformReader {
  /** The resource with this platform id; undefined when the platform answers 404. */
  read(kind: IdentityKind, targetId: string): Promise<Record<string, unknown> | undefined>;
  /** The resources that match `attribute eq value` (a look-up: provisioning on demand). */
  find(kind: IdentityKind, attribute: string, value: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** An operator waits for the answer: the read gives up after this, whatever holds it up. */
const READ_DEADLINE_MS = 10_000;

/**
 * The HTTP side's own platform client, made on first use: a few requests at a time, through the
 * shared request gate (a Retry-After pause and TARGET_MAX_RPS hold these reads too), with the live
 * TARGET_TOKEN. A read that the gate or the platform holds up longer than the deadline fails with
 * a clear error instead of keeping the dashboard waiting.
 */
export function platformReader(
  config: Config,
  store: StoreSide,
  metrics: Metrics,
  logger: Logger,
  token: () => string,
): PlatformReader {
  let client: PlatformClient | undefined;
  const settings: Config = {
    ...config,
    target: {
      ...config.target,
      concurrency: Math.min(config.target.concurrency, 2),
      timeoutSeconds: Math.min(config.target.timeoutSeconds, READ_DEADLINE_MS / 1000),
    },
  };
  const open = () => (client ??= createPlatformClient(settings, store, metrics, logger, token));
  return {
    read: async (kind, targetId) => {
      const resource = await withDeadline(open().get(kind, targetId), READ_DEADLINE_MS);
      return resource as Record<string, unknown> | undefined;
    },
    find: async (kind, attribute, value) => {
      const found = await withDeadline(open().findBy(kind, attribute, value), READ_DEADLINE_MS);
      return found as unknown as Record<string, unknown>[];
    },
    close: async () => {
      await client?.http.close();
    },
  };
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new BridgeError(
            'target_unavailable',
            `The platform did not answer within ${ms / 1000} s (it may be down, or asked the bridge to wait)`,
          ),
        ),
      ms,
    );
  });
  // The read may still fail after the deadline: that outcome is no longer anyone's.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

import type { Env } from '../../src/config/load-config.js';
import { startBridge, type BridgeHandle, type Role } from '../../src/main.js';
import { silentLogger, type Logger } from '../../src/ops/logger.js';
import {
  startReferenceTarget,
  type ReferenceTarget,
  type ReferenceTargetOptions,
} from 'scim-reference-target';
import { testConfig } from './config.js';
import { deleteKeys } from './redis.js';

export const TARGET_TOKEN = 'reference-target-token-0001';

/**
 * A bridge (real wiring from main.ts) against a reference target over HTTP, under a fresh Redis key
 * prefix. Real: Redis, BullMQ, HTTP, the target emulation. Nothing is mocked.
 */
export interface EngineFixture {
  bridge: BridgeHandle;
  target: ReferenceTarget;
  /** Resolves when no reconcile job is queued, running or delayed and no change is left unreconciled. */
  drain(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTarget(options: Partial<ReferenceTargetOptions> = {}): Promise<ReferenceTarget> {
  return startReferenceTarget({ token: TARGET_TOKEN, ...options });
}

export async function startEngine(
  target: ReferenceTarget,
  env: Env = {},
  options: { role?: Role; logger?: Logger } = {},
): Promise<EngineFixture> {
  const config = testConfig({
    TARGET_URL: target.url,
    TARGET_TOKEN,
    RECONCILE_BACKOFF_MS: '50',
    RECONCILE_LOCK_SECONDS: '5',
    ...env,
  });
  const bridge = await startBridge(config, {
    role: options.role ?? 'all',
    port: 0,
    logger: options.logger ?? silentLogger(),
  });
  return {
    bridge,
    target,
    drain: (timeoutMs = 30_000) => drain(bridge, timeoutMs),
    close: async () => {
      await bridge.close();
      await deleteKeys(config.redis.keyPrefix);
    },
  };
}

export async function drain(bridge: BridgeHandle, timeoutMs: number): Promise<void> {
  const queue = bridge.store.producer.queue;
  const okta = bridge.store.oktaEvents.queue;
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  while (Date.now() < deadline) {
    const states = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;
    const counts = [await okta.getJobCounts(...states), await queue.getJobCounts(...states)];
    const busy = counts.flatMap((c) => Object.values(c)).reduce((a, b) => a + b, 0);
    const dirty =
      (await bridge.store.redis.zcard(bridge.store.keys.dirty())) +
      (await bridge.store.redis.zcard(bridge.store.keys.dirtyForSync()));
    quiet = busy === 0 && dirty === 0 ? quiet + 1 : 0;
    if (quiet >= 3) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const counts = await queue.getJobCounts(
    'wait',
    'active',
    'delayed',
    'prioritized',
    'waiting-children',
    'failed',
  );
  throw new Error(`queues did not drain within ${timeoutMs} ms: ${JSON.stringify(counts)}`);
}

import request from 'supertest';
import { expect } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { Logger } from '../../src/ops/logger.js';
import type { OktaLogCursor } from '../../src/sources/okta/okta-system-log.js';
import type { Freshness } from '../../src/store/input-freshness.store.js';
import { startEngine, type EngineFixture } from '../support/engine.js';
import type { OktaApiServer } from '../support/okta-api.js';

// A bridge wired as main.ts wires it (HTTP, Redis, BullMQ workers, the input reads) with the okta
// input configured against the Okta emulation, whose Event Hooks it receives.
export const HOOK_SECRET = 'okta-hook-secret-for-tests-01';
export const ADMIN = 'admin-token-for-okta-tests';
const auth = { Authorization: `Bearer ${ADMIN}` };

export interface SyncView {
  jobId: string;
  state: string;
  trigger: string;
  plan?: Record<string, unknown> & { holdReasons?: string[] };
  summary?: Record<string, number>;
  error?: { code: string; message: string };
}

export interface OktaBridge {
  engine: EngineFixture;
  /** Stops the bridge and keeps its Redis keys (a restart continues from them). */
  stop(): Promise<void>;
  /** Stops the bridge and deletes its keys. */
  close(): Promise<void>;
  /** Where okta's change read (its System Log) continues: its watermark's cursor. */
  cursor(): Promise<OktaLogCursor | undefined>;
  freshness(): Promise<Freshness>;
  /** scim_bridge_okta_missed_events_total */
  missed(): Promise<number>;
  /** POST /admin/sync; returns the job id. */
  sync(body: Record<string, unknown>): Promise<string>;
  /** Waits for a sync to settle (completed, failed or awaiting approval). */
  settled(jobId: string): Promise<SyncView>;
  syncs(): Promise<SyncView[]>;
}

export async function startOktaBridge(
  target: ReferenceTarget,
  okta: OktaApiServer,
  options: { env?: Record<string, string>; keyPrefix?: string; logger?: Logger; hooks?: boolean } = {},
): Promise<OktaBridge> {
  const engine = await startEngine(
    target,
    {
      OKTA_HOOK_SECRET: HOOK_SECRET,
      OKTA_ORG_URL: okta.url,
      OKTA_API_TOKEN: okta.token,
      OKTA_LOG_POLL_SECONDS: '1',
      ADMIN_TOKEN: ADMIN,
      ...(options.keyPrefix ? { KEY_PREFIX: options.keyPrefix } : {}),
      ...options.env,
    },
    options.logger ? { logger: options.logger } : {},
  );
  const { bridge } = engine;
  if (options.hooks !== false) {
    okta.setHook({ url: `${bridge.http.url}/webhooks/okta`, authorization: HOOK_SECRET, retryDelayMs: 50 });
  }
  const http = () => request(bridge.http.server);
  const view = async (jobId: string) =>
    (await http().get(`/admin/sync/${jobId}`).set(auth).expect(200)).body as SyncView;
  return {
    engine,
    stop: () => bridge.close(),
    close: () => engine.close(),
    cursor: async () => {
      const watermark = await bridge.store.sync.deltas.watermark('okta');
      return watermark ? (JSON.parse(watermark.value) as OktaLogCursor) : undefined;
    },
    freshness: async () => {
      const fresh = (await bridge.store.sync.freshness.read(['okta'])).get('okta');
      if (!fresh) throw new Error('the freshness store answered nothing for okta');
      return fresh;
    },
    missed: async () => (await bridge.metrics.oktaMissedEvents.get()).values[0]?.value ?? 0,
    sync: async (body) => (await http().post('/admin/sync').set(auth).send(body).expect(202)).body.jobId,
    settled: async (jobId) => {
      let last = {} as SyncView;
      await expect
        .poll(
          async () => {
            last = await view(jobId);
            return ['completed', 'failed', 'awaiting-approval'].includes(last.state);
          },
          { timeout: 30_000, interval: 50 },
        )
        .toBe(true);
      return last;
    },
    syncs: async () => (await http().get('/admin/sync').set(auth).expect(200)).body.syncs as SyncView[],
  };
}

/** Ten active users in Okta, seeded (no events), `00uuser00000000000<n>`. */
export function seedUsers(okta: OktaApiServer, count = 10): string[] {
  return Array.from({ length: count }, (_, n) => {
    const id = `00uuser${String(n).padStart(13, '0')}`;
    okta.setUser({
      id,
      status: 'ACTIVE',
      profile: {
        login: `user${n}@corp.example`,
        email: `user${n}@corp.example`,
        firstName: 'User',
        lastName: `N${n}`,
      },
    });
    return id;
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { silentLogger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { listPages } from '../../src/platform/list-all.js';
import { PlatformClient } from '../../src/platform/platform.client.js';
import { createRequestGate } from '../../src/platform/request-gate.js';
import { ScimHttp } from '../../src/platform/scim-http.js';
import { createKeys } from '../../src/store/keys.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { RequestGateStore } from '../../src/store/request-gate.store.js';
import { testConfig } from '../support/config.js';
import { deleteKeys, uniquePrefix } from '../support/redis.js';

// Real: the platform client over HTTP against the reference target (page cap 10, latency), its gate
// in Redis. The listing of a full sync is handed over page by page and never held: at most as many
// pages as run at once are in the receiver's hands.
const TOKEN = 'list-pages-token-000000000';

describe('listing the platform page by page', () => {
  let target: ReferenceTarget;
  let redis: RedisClient;
  let client: PlatformClient;
  const prefix = uniquePrefix('list');

  beforeAll(async () => {
    target = await startReferenceTarget({ token: TOKEN, pageCap: 10, latencyMs: 5 });
    for (let n = 0; n < 437; n++) target.insertUser({ userName: `user${n}@example.com`, active: true });
    redis = createRedis(testConfig().redis, 'worker');
    const http = new ScimHttp({
      baseUrl: target.url,
      token: () => TOKEN,
      concurrency: 4,
      timeoutMs: 10_000,
      gate: createRequestGate(new RequestGateStore(redis, createKeys(prefix)), 0),
      metrics: createMetrics(),
      logger: silentLogger(),
    });
    client = new PlatformClient(http);
  });
  afterAll(async () => {
    await client.http.close();
    await target.close();
    await deleteKeys(prefix);
    await closeRedis(redis);
  });

  it('hands every resource over once, with at most `concurrency` pages held at a time', async () => {
    const seen = new Set<string>();
    let held = 0;
    let mostHeld = 0;
    let handed = 0;
    const pages = await listPages(client, 'user', {
      pageSize: 100,
      concurrency: 4,
      onResources: async (resources) => {
        held++;
        mostHeld = Math.max(mostHeld, held);
        for (const r of resources) seen.add(r.id);
        handed += resources.length;
        // The receiver works on the page (a Redis write in a sync) before the worker asks for more.
        await redis.ping();
        held--;
      },
    });
    expect(pages).toBe(44);
    expect(seen.size).toBe(437);
    expect(handed).toBe(437);
    expect(mostHeld).toBeGreaterThan(1);
    expect(mostHeld).toBeLessThanOrEqual(4);
  });

  it('stops asking for pages once the receiver refuses one, after those in flight', async () => {
    target.resetStats();
    let calls = 0;
    const refused = listPages(client, 'user', {
      pageSize: 100,
      concurrency: 4,
      onResources: async () => {
        if (++calls === 3) throw new Error('cancelled');
        await redis.ping();
      },
    });
    await expect(refused).rejects.toThrow('cancelled');
    // Those handed over, and each worker's page in flight and the next one it asked for ahead.
    expect(target.stats().byRoute['GET /Users']).toBeLessThanOrEqual(3 + 2 * 4);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type BridgeHandle } from '../../src/main.js';
import { silentLogger } from '../../src/ops/logger.js';
import type { ReferenceTarget } from 'scim-reference-target';
import { testConfig } from '../support/config.js';
import { drain, startTarget, TARGET_TOKEN } from '../support/engine.js';
import { deleteKeys } from '../support/redis.js';
import { ADMIN_TOKEN, auth, startAdminFixture, user, type AdminFixture } from './admin-fixture.js';

// Real: Redis, BullMQ workers, HTTP, the reference target scripting a refused token and an outage.
// What an operator sees in GET /admin/status and /readyz while the target is unhealthy, and that
// work is kept and processing resumes by itself.
describe('target health in /admin/status', () => {
  let fixture: AdminFixture | undefined;

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  const status = async (f: AdminFixture) => (await f.http().get('/admin/status').set(auth).expect(200)).body;
  const targetState = async (f: AdminFixture) => (await status(f)).target.state as string;

  it('reports auth-failed with since-when on 401, keeps the work, and recovers by itself', async () => {
    const f = (fixture = await startAdminFixture({ RECONCILE_ATTEMPTS: '1' }));
    f.target.setToken('a-rotated-token-the-bridge-lacks');
    for (let i = 0; i < 3; i++) await f.engine.bridge.store.api.upsertUser(user(i));
    await expect.poll(() => targetState(f), { timeout: 15_000 }).toBe('auth-failed');

    const body = await status(f);
    expect(body).toMatchObject({ status: 'degraded', target: { state: 'auth-failed' } });
    expect(Date.parse(body.target.since)).toBeGreaterThan(0);
    expect(body.target.detail).toMatch(/401/);
    expect(body.pending).toBe(3);
    expect(body.failures).toBe(0);
    const ready = await f.http().get('/readyz').expect(200);
    expect(ready.body).toMatchObject({ status: 'ready', target: { state: 'auth-failed' } });
    expect(f.target.users()).toHaveLength(0);

    f.target.setToken(TARGET_TOKEN);
    await f.engine.drain(60_000);
    expect(f.target.users()).toHaveLength(3);
    expect(await status(f)).toMatchObject({ status: 'ok', target: { state: 'reachable' }, pending: 0 });
  });

  it('reports unavailable through an outage with the work kept queued', async () => {
    const f = (fixture = await startAdminFixture({ RECONCILE_ATTEMPTS: '2' }));
    await f.target.faults.setOutage('refuse');
    for (let i = 0; i < 4; i++) await f.engine.bridge.store.api.upsertUser(user(i));
    await expect.poll(() => targetState(f), { timeout: 15_000 }).toBe('unavailable');
    const body = await status(f);
    expect(body.status).toBe('degraded');
    expect(body.pending).toBe(4);
    expect(body.failures).toBe(0);
    const queued = body.queues.reconcile as Record<'waiting' | 'active' | 'delayed' | 'prioritized', number>;
    expect(queued.waiting + queued.active + queued.delayed + queued.prioritized).toBeGreaterThan(0);

    await f.target.faults.setOutage(null);
    await f.engine.drain(60_000);
    expect(f.target.users()).toHaveLength(4);
    expect(await targetState(f)).toBe('reachable');
  });
});

describe('a rotated TARGET_TOKEN_FILE', () => {
  let target: ReferenceTarget | undefined;
  let bridge: BridgeHandle | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await bridge?.close();
    if (bridge) await deleteKeys(bridge.config.redis.keyPrefix);
    await target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is picked up without a restart: processing resumes once the new token works', async () => {
    target = await startTarget();
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-token-'));
    const tokenFile = join(dir, 'target-token');
    const stale = 'a-revoked-token-0000000001';
    writeFileSync(tokenFile, `${stale}\n`);
    const config = testConfig({
      TARGET_URL: target.url,
      TARGET_TOKEN: stale,
      ADMIN_TOKEN,
      RECONCILE_ATTEMPTS: '1',
      RECONCILE_BACKOFF_MS: '50',
    });
    bridge = await startBridge(config, {
      role: 'all',
      port: 0,
      secretFiles: { targetToken: tokenFile },
      logger: silentLogger(),
    });
    const http = () => request((bridge as BridgeHandle).http.server);
    const state = async () =>
      (await http().get('/admin/status').set(auth).expect(200)).body.target.state as string;

    // One identity: one request in flight, so the probe's back-off grows once per probe.
    await bridge.store.api.upsertUser(user(0));
    await expect.poll(state, { timeout: 15_000 }).toBe('auth-failed');
    expect(target.users()).toHaveLength(0);

    writeFileSync(tokenFile, `${TARGET_TOKEN}\n`);
    await drain(bridge, 100_000);
    expect(target.users().map((u) => u.userName)).toEqual(['user0@example.com']);
    expect(await state()).toBe('reachable');
  }, 120_000);
});

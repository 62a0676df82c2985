import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileBridge, type HostileBridge } from './bridge-fixture.js';

// Real: the whole bridge (Redis, HTTP); the target's health is the record the workers share in
// Redis, written here as a worker would after a refused token.
describe('/readyz without credentials', () => {
  let bridge: HostileBridge;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('says nothing of a time before anything happened (no 1970 `since`)', async () => {
    const res = await bridge.http().get('/readyz').expect(200);
    expect(res.body.target).toEqual({ state: 'reachable' });
  });

  it("redacts the platform's error text as /admin/status does", async () => {
    const detail =
      'The platform answered 401: rejected Authorization: Bearer plat-secret-token-123 for ' +
      'https://bridge:hunter2@tenant.example.com/api/scim/v2/Users?access_token=abc123';
    const changedAt = Date.parse('2030-01-02T03:04:05.000Z');
    await bridge.engine.bridge.store.health.write('auth-failed', detail, changedAt);
    const ready = await bridge.http().get('/readyz').expect(200);
    const status = await bridge.admin('get', '/admin/status').expect(200);
    expect(ready.body.target).toEqual({
      state: 'auth-failed',
      since: '2030-01-02T03:04:05.000Z',
      detail: status.body.target.detail,
    });
    for (const secret of ['plat-secret-token-123', 'hunter2', 'abc123'])
      expect(ready.text).not.toContain(secret);
    expect(ready.body.target.detail).toContain('Bearer [redacted]');
  });
});

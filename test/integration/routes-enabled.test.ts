import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type BridgeHandle } from '../../src/main.js';
import { silentLogger } from '../../src/ops/logger.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: the serve role on port 0 with no inbound secret set.
describe('inputs whose secret is not set', () => {
  let bridge: BridgeHandle;

  beforeAll(async () => {
    bridge = await startBridge(testConfig(), { role: 'serve', port: 0, logger: silentLogger() });
  });
  afterAll(async () => {
    await bridge.close();
    await deleteKeys(bridge.config.redis.keyPrefix);
  });

  it('answer 404 saying which setting enables them, SCIM push with a SCIM error', async () => {
    const http = () => request(bridge.http.server);
    const scim = await http().get('/scim/v2/Users').set('Authorization', 'Bearer anything-at-all-0001');
    expect(scim.status).toBe(404);
    expect(scim.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(scim.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '404',
      detail: 'SCIM push is not enabled: set INBOUND_SCIM_TOKEN',
    });
    const events = await http().post('/webhooks/events').send({});
    expect(events.status).toBe(404);
    expect(events.body.error).toMatchObject({
      code: 'not_enabled',
      message: expect.stringContaining('WEBHOOK_SECRET'),
    });
    const okta = await http().get('/webhooks/okta');
    expect(okta.status).toBe(404);
    expect(okta.body.error.message).toContain('OKTA_HOOK_SECRET');
  });
});

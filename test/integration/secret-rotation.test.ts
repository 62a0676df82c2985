import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type BridgeHandle } from '../../src/main.js';
import { SecretRegistry } from '../../src/ops/logger.js';
import { signatureHeader } from '../../src/sources/events/signature.js';
import { testConfig } from '../support/config.js';
import { logSink, type LogSink } from '../support/log-sink.js';
import { deleteKeys } from '../support/redis.js';

const OLD = {
  scim: 'scim-token-old-000000000001',
  admin: 'admin-token-old-00000000001',
  webhook: 'webhook-secret-old-00000001',
  okta: 'okta-hook-secret-old-000001',
};
const NEW = {
  scim: 'scim-token-new-000000000002',
  admin: 'admin-token-new-00000000002',
  webhook: 'webhook-secret-new-00000002',
  okta: 'okta-hook-secret-new-000002',
};

// Real: the serve role on port 0 with its inbound secrets mounted as files, rewritten while it runs.
describe('rotating inbound secrets given as files', () => {
  let dir: string;
  let bridge: BridgeHandle;
  let logs: LogSink;
  const file = (name: string) => join(dir, name);
  const write = (name: keyof typeof OLD, ...values: string[]) =>
    writeFileSync(file(name), `${values.join('\n')}\n`);
  const http = () => request(bridge.http.server);

  const scimStatus = (token: string) =>
    http()
      .get('/scim/v2/Users?count=1')
      .set('Authorization', `Bearer ${token}`)
      .then((r) => r.status);
  const adminStatus = (token: string) =>
    http()
      .get('/admin/status')
      .set('Authorization', `Bearer ${token}`)
      .then((r) => r.status);
  const eventStatus = (secret: string, id: string) => {
    const body = JSON.stringify({ id, type: 'user.upserted', data: { id, userName: `${id}@example.com` } });
    return http()
      .post('/webhooks/events')
      .set('Content-Type', 'application/json')
      .set('X-Bridge-Signature', signatureHeader(secret, body, Math.floor(Date.now() / 1000)))
      .send(body)
      .then((r) => r.status);
  };
  const oktaStatus = (secret: string) =>
    http()
      .get('/webhooks/okta')
      .set('Authorization', secret)
      .set('X-Okta-Verification-Challenge', 'challenge')
      .then((r) => r.status);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-secrets-'));
    write('scim', OLD.scim);
    write('admin', OLD.admin);
    write('webhook', OLD.webhook);
    write('okta', OLD.okta);
    const config = testConfig({
      TARGET_URL: 'http://127.0.0.1:9',
      INBOUND_SCIM_TOKEN: OLD.scim,
      ADMIN_TOKEN: OLD.admin,
      WEBHOOK_SECRET: OLD.webhook,
      OKTA_HOOK_SECRET: OLD.okta,
    });
    const scrubbed = new SecretRegistry(Object.values(OLD));
    logs = logSink(scrubbed, 'warn');
    bridge = await startBridge(config, {
      role: 'serve',
      port: 0,
      logger: logs.logger,
      scrubbed,
      secretFiles: {
        scimToken: file('scim'),
        adminToken: file('admin'),
        webhookSecret: file('webhook'),
        oktaHookSecret: file('okta'),
      },
    });
  });
  afterAll(async () => {
    await bridge.close();
    await deleteKeys(bridge.config.redis.keyPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts the old and the new secret while the file holds both, then only the new one', async () => {
    expect(await scimStatus(OLD.scim)).toBe(200);
    expect(await scimStatus(NEW.scim)).toBe(401);

    // Step 1: both secrets, one per line — the IdP may switch at any moment.
    write('scim', OLD.scim, NEW.scim);
    write('admin', OLD.admin, NEW.admin);
    write('webhook', OLD.webhook, NEW.webhook);
    write('okta', OLD.okta, NEW.okta);
    await expect.poll(() => scimStatus(NEW.scim), { timeout: 10_000 }).toBe(200);
    expect(await scimStatus(OLD.scim)).toBe(200);
    await expect.poll(() => adminStatus(NEW.admin), { timeout: 10_000 }).toBe(200);
    expect(await adminStatus(OLD.admin)).toBe(200);
    await expect.poll(() => eventStatus(NEW.webhook, 'rot-1'), { timeout: 10_000 }).toBe(202);
    expect(await eventStatus(OLD.webhook, 'rot-2')).toBe(202);
    await expect.poll(() => oktaStatus(NEW.okta), { timeout: 10_000 }).toBe(200);
    expect(await oktaStatus(OLD.okta)).toBe(200);

    // Step 2: the old secrets removed.
    write('scim', NEW.scim);
    write('admin', NEW.admin);
    write('webhook', NEW.webhook);
    write('okta', NEW.okta);
    await expect.poll(() => scimStatus(OLD.scim), { timeout: 10_000 }).toBe(401);
    expect(await scimStatus(NEW.scim)).toBe(200);
    await expect.poll(() => adminStatus(OLD.admin), { timeout: 10_000 }).toBe(401);
    expect(await adminStatus(NEW.admin)).toBe(200);
    // Each poll sends a new event: one sent before the file was re-read is accepted, rightly.
    let polls = 0;
    await expect.poll(() => eventStatus(OLD.webhook, `rot-poll-${++polls}`), { timeout: 10_000 }).toBe(401);
    expect(await eventStatus(OLD.webhook, 'rot-3')).toBe(401);
    expect(await eventStatus(NEW.webhook, 'rot-4')).toBe(202);
    await expect.poll(() => oktaStatus(OLD.okta), { timeout: 10_000 }).toBe(401);
    expect(await oktaStatus(NEW.okta)).toBe(200);
    expect(await bridge.store.desired.getUser('rot-3')).toBeUndefined();
    // The values rotated in are scrubbed from the logs, as the start-up ones are.
    bridge.logger.warn(`a line that quotes ${NEW.scim} and ${NEW.webhook} and ${OLD.admin}`);
    expect(logs.text()).toContain('a line that quotes [REDACTED] and [REDACTED] and [REDACTED]');
    expect(await bridge.store.desired.getUser('rot-4')).toMatchObject({ userName: 'rot-4@example.com' });
  }, 60_000);

  it('keeps the last value when new contents would be refused at start-up, and says why', async () => {
    // The first test left the admin file holding NEW.admin only.
    write('admin', NEW.admin, 'too-short');
    // The file is looked at when the secret is used: each poll makes a request.
    const refusals = async () => {
      await adminStatus(NEW.admin);
      return logs.lines().filter((line) => line.setting === 'ADMIN_TOKEN_FILE').length;
    };
    await expect.poll(refusals, { timeout: 10_000 }).toBe(1);
    expect(logs.text()).toContain('a line shorter than 16 characters');
    expect(logs.text()).not.toContain('too-short');
    expect(await adminStatus(NEW.admin)).toBe(200);
    expect(await adminStatus('too-short')).toBe(401);
  });
});

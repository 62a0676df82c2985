import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startHostileBridge, type HostileBridge } from './bridge-fixture.js';

// Real: the whole bridge (Redis, where sessions live; bull-board; HTTP). The dashboard's sign-out
// is the DELETE it sends (src/admin/ui/public/app.js).
describe('the queue-board session', () => {
  let bridge: HostileBridge;
  const store = () => bridge.engine.bridge.store;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  async function signIn(): Promise<{ cookie: string; id: string }> {
    const res = await bridge.admin('post', '/admin/queues/session').expect(204);
    const header = (res.headers['set-cookie'] as unknown as string[] | undefined)?.[0] ?? '';
    const cookie = header.split(';')[0] ?? '';
    return { cookie, id: cookie.slice(cookie.indexOf('=') + 1) };
  }
  const board = (cookie: string) => bridge.http().get('/admin/queues/').set('Cookie', cookie);
  const sessionKey = (id: string) => store().keys.adminSession(createHash('sha256').update(id).digest('hex'));

  it('opens the board with the session cookie and no longer once signed out', async () => {
    const { cookie } = await signIn();
    expect((await board(cookie)).status).toBe(200);
    await bridge.http().delete('/admin/queues/session').set('Cookie', cookie).expect(204);
    const after = await board(cookie);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
  });

  it('expires on the server: the session lasts 8 hours at most, and an expired one opens nothing', async () => {
    const { cookie, id } = await signIn();
    const ttl = await store().redis.ttl(sessionKey(id));
    expect(ttl).toBeGreaterThan(8 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(8 * 3600);
    await store().redis.pexpire(sessionKey(id), 1);
    await expect.poll(async () => (await board(cookie)).status).toBe(401);
  });

  it('ends with the admin token it was opened with, and never holds the cookie in Redis', async () => {
    const { cookie, id } = await signIn();
    const stored = (await store().redis.get(sessionKey(id))) ?? '';
    expect(stored).not.toBe('');
    expect(stored).not.toContain(id);
    expect(stored).not.toContain(ADMIN_TOKEN);
    await store().redis.set(sessionKey(id), 'opened with another token', 'KEEPTTL');
    expect((await board(cookie)).status).toBe(401);
  });

  it('refuses a made-up cookie', async () => {
    expect((await board('scim-bridge-queues=' + 'A'.repeat(43))).status).toBe(401);
    expect((await board('scim-bridge-queues=not-even-the-form')).status).toBe(401);
  });
});

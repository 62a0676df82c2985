import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, startTarget } from '../support/engine.js';
import {
  ADMIN_TOKEN,
  adminRouteTable,
  auth,
  startAdminFixture,
  type AdminFixture,
  type AdminRoute,
} from './admin-fixture.js';

// Real: the bridge's HTTP surface as main.ts wires it, Redis, the reference target. The route
// table is read from the routers themselves, so a route added later is walked too.
describe('admin API authentication', () => {
  let fixture: AdminFixture;
  let routes: AdminRoute[];

  beforeAll(async () => {
    fixture = await startAdminFixture();
    routes = adminRouteTable(fixture);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const concrete = (route: AdminRoute) =>
    `/admin${route.path.replace(':kind', 'users').replace(/:(\w+)/g, 'x1')}`;
  const send = (route: AdminRoute, headers: Record<string, string>, url = concrete(route)) => {
    const http = fixture.http();
    const call = route.method === 'POST' ? http.post(url).send({ all: true }) : http.get(url);
    return call.set(headers);
  };

  it('walks every admin route', () => {
    expect(routes.length).toBeGreaterThanOrEqual(14);
  });

  it('refuses every route without a token, with a wrong one, and with one in the URL', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer not-the-admin-token-at-all' },
      { Authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
      { Authorization: ADMIN_TOKEN },
      { Authorization: `Bearer ${ADMIN_TOKEN}x` },
    ];
    for (const route of routes) {
      for (const headers of wrong) {
        const res = await send(route, headers);
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
      }
      const inQuery = await send(route, {}, `${concrete(route)}?access_token=${ADMIN_TOKEN}`);
      expect(inQuery.status).toBe(401);
    }
  });

  it('answers every route with the token (no 401)', async () => {
    for (const route of routes) {
      const res = await send(route, auth);
      expect(res.status, `${route.method} ${route.path}`).not.toBe(401);
    }
  });

  it('changes nothing on a refused request', async () => {
    const { store } = fixture.engine.bridge;
    const before = (await store.syncs.list(100)).length;
    await fixture.http().post('/admin/sync').send({ dryRun: true }).expect(401);
    await fixture
      .http()
      .post('/admin/failures/retry')
      .send({ keys: ['user:u1'] })
      .expect(401);
    expect(await store.syncs.list(100)).toHaveLength(before);
    expect(await store.syncs.records.activeSyncId()).toBeUndefined();
    expect(await store.producer.queue.count()).toBe(0);
  });
});

describe('queue board (bull-board) at /admin/queues', () => {
  let fixture: AdminFixture;

  beforeAll(async () => {
    fixture = await startAdminFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('needs the token or the session cookie obtained with it', async () => {
    const http = () => fixture.http();
    for (const path of [
      '/admin/queues',
      '/admin/queues/',
      '/admin/queues/api/queues',
      '/admin/queues/static/x.js',
    ]) {
      const res = await http().get(path);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    await http().post('/admin/queues/session').expect(401);
    await http().get('/admin/queues/').set('Cookie', 'scim-bridge-queues=forged').expect(401);

    const session = await http().post('/admin/queues/session').set(auth).expect(204);
    const cookie = String(session.headers['set-cookie']);
    expect(cookie).toMatch(
      /^scim-bridge-queues=[\w-]+; Max-Age=\d+; Path=\/admin\/queues; Expires=.*; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(ADMIN_TOKEN);
    const value = cookie.split(';')[0] ?? '';

    const page = await http().get('/admin/queues/').set('Cookie', value).expect(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('scim-bridge queues');
    const queues = await http().get('/admin/queues/api/queues').set('Cookie', value).expect(200);
    const names = (queues.body.queues as { name: string; readOnlyMode: boolean }[]).map((q) => q.name).sort();
    expect(names).toEqual(['okta-events', 'reconcile', 'sync']);
    expect((queues.body.queues as { readOnlyMode: boolean }[]).every((q) => q.readOnlyMode)).toBe(true);
    await http().get('/admin/queues/api/queues').set(auth).expect(200);
    // The cookie opens the board only, never the admin API.
    await http().get('/admin/status').set('Cookie', value).expect(401);
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  it('is not enabled, dashboard included', async () => {
    const target = await startTarget();
    const engine = await startEngine(target, { ADMIN_TOKEN: '' });
    try {
      const http = () => request(engine.bridge.http.server);
      const res = await http().get('/admin/status').set({ Authorization: 'Bearer ' }).expect(404);
      expect(res.body.error.code).toBe('not_enabled');
      await http().get('/admin/ui/').expect(404);
      await http().get('/admin/ui/assets/app.js').expect(404);
      await http().get('/admin/queues/').expect(404);
    } finally {
      await engine.close();
      await target.close();
    }
  });
});

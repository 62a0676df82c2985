import request from 'supertest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { DesiredUser } from '../../src/domain/identity.js';
import { adminRouters } from '../../src/admin/admin-routes.js';
import { adminDeps } from '../../src/wiring/admin-deps.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

/**
 * What the admin tests share: a bridge (real wiring: Redis, BullMQ, HTTP) against the reference
 * target over HTTP, driven through its admin API.
 */
export const ADMIN_TOKEN = 'admin-token-for-operating-tests';
export const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

export interface AdminFixture {
  target: ReferenceTarget;
  engine: EngineFixture;
  http(): ReturnType<typeof request>;
  close(): Promise<void>;
}

export async function startAdminFixture(env: Record<string, string> = {}): Promise<AdminFixture> {
  const target = await startTarget({ pageCap: 50 });
  const engine = await startEngine(target, { ADMIN_TOKEN, ...env });
  return {
    target,
    engine,
    http: () => request(engine.bridge.http.server),
    close: async () => {
      await engine.close();
      await target.close();
    },
  };
}

export const user = (n: number): DesiredUser => ({
  id: `u${n}`,
  userName: `user${n}@example.com`,
  name: { givenName: `Given${n}`, familyName: `Family${n}` },
  emails: [{ value: `user${n}@example.com`, primary: true }],
  active: true,
});

export const snapshotOf = (count: number) => {
  const users = Array.from({ length: count }, (_, i) => user(i));
  return {
    users,
    groups: [
      {
        id: 'g-eng',
        displayName: 'Engineering',
        members: users.filter((_, i) => i % 2 === 0).map((u) => u.id),
      },
      {
        id: 'g-ops',
        displayName: 'Operations',
        members: users.filter((_, i) => i % 2 === 1).map((u) => u.id),
      },
    ],
  };
};

/** A user the platform refuses (400: userName is required), i.e. a permanent failure. */
export const BAD_USER: DesiredUser = { id: 'bad', userName: '', active: true };

/** Another kind the platform refuses (400: only one e-mail may be primary, RFC 7643 §2.4). */
export const twoPrimaryEmails = (n: number): DesiredUser => ({
  id: `bad${n}`,
  userName: `bad${n}@example.com`,
  emails: [
    { value: `bad${n}@example.com`, primary: true },
    { value: `bad${n}@example.org`, primary: true },
  ],
  active: true,
});

/**
 * Makes the bad user valid in the desired state without enqueueing its run (as the store does
 * before the enqueue): only the dirty sweep, a minute later, or an operator's retry runs it.
 */
export async function fixBadUserQuietly(fixture: AdminFixture): Promise<void> {
  await fixture.engine.bridge.store.desired.apply([
    { op: 'upsertUser', user: { ...BAD_USER, userName: 'fixed@example.com' } },
  ]);
}

export async function startSync(fixture: AdminFixture, body: Record<string, unknown>): Promise<string> {
  const res = await fixture.http().post('/admin/sync').set(auth).send(body).expect(202);
  return res.body.jobId as string;
}

/** Polls a sync until it ends or waits for approval (usable in hooks too, unlike expect.poll). */
export async function settledSync(fixture: AdminFixture, jobId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fixture.http().get(`/admin/sync/${jobId}`).set(auth).expect(200);
    const record = res.body as Record<string, unknown>;
    if (['completed', 'failed', 'awaiting-approval'].includes(record.state as string)) return record;
    if (Date.now() > deadline) throw new Error(`sync ${jobId} still ${String(record.state)} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function failureCount(fixture: AdminFixture): Promise<number> {
  const store = fixture.engine.bridge.store;
  return store.redis.zcard(store.keys.failures());
}

export interface AdminRoute {
  method: string;
  /** Express path under /admin, e.g. /sync/:jobId. */
  path: string;
}

/** The admin API's route table, read from the routers main.ts mounts behind the token. */
export function adminRouteTable(fixture: AdminFixture): AdminRoute[] {
  const { config, store } = fixture.engine.bridge;
  const routes: AdminRoute[] = [];
  for (const router of adminRouters(adminDeps(config, store))) {
    for (const layer of router.stack) {
      if (!layer.route) continue;
      const methods = new Set(layer.route.stack.map((l) => l.method.toUpperCase()));
      for (const method of methods) routes.push({ method, path: layer.route.path });
    }
  }
  return routes;
}

/** `/sync/:jobId` → `/admin/sync/{jobId}`, as the OpenAPI document names it. */
export function openApiPath(route: AdminRoute): string {
  return `/admin${route.path.replace(/:(\w+)/g, '{$1}')}`;
}

import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { silentLogger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import type { OktaEventProducer } from '../../src/queue/okta-events.producer.js';
import type { ReferenceTarget } from 'scim-reference-target';
import { webhookRoutes } from '../../src/sources/webhook-routes.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';

// Real: Redis, BullMQ (the okta-events queue and worker, the reconcile workers), the reference
// target and a local server answering like Okta's Users and Groups API, all over HTTP.
const HOOK_SECRET = 'okta-hook-secret-for-tests-01';
const FIXTURES = new URL('../fixtures/okta-hooks/', import.meta.url);
const fixtureText = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

type OktaEvent = Record<string, unknown> & { target: Record<string, unknown>[] | null };

/** The first event of a fixture, re-addressed: a fresh uuid, a published time, other targets. */
function eventLike(name: string, uuid: string, published: string, targets?: Record<string, unknown>[]) {
  const body = JSON.parse(fixtureText(name)) as { data: { events: OktaEvent[] } };
  const event = body.data.events[0] as OktaEvent;
  return { ...event, uuid, published, target: targets ?? event.target };
}

const delivery = (events: unknown[]) =>
  JSON.stringify({ eventType: 'com.okta.event_hook', data: { events } });
const oktaUser = (id: string, login: string, displayName: string) => ({
  id,
  type: 'User',
  alternateId: login,
  displayName,
  detailEntry: null,
});

interface Harness {
  engine: EngineFixture;
  app: Server;
  producer: OktaEventProducer;
  post(body: string, authorization?: string): request.Test;
  /** Waits for the okta-events queue, then for reconciliation. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** The bridge's own wiring: its okta-events producer and worker, enriching from `okta` when given. */
async function startHarness(target: ReferenceTarget, okta?: OktaApiServer): Promise<Harness> {
  const enrichment = okta ? { OKTA_ORG_URL: okta.url, OKTA_API_TOKEN: okta.token } : {};
  const engine = await startEngine(target, { OKTA_HOOK_SECRET: HOOK_SECRET, ...enrichment });
  const producer = engine.bridge.store.oktaEvents;
  const app = engine.bridge.http.server;
  return {
    engine,
    app,
    producer,
    post: (body, authorization = HOOK_SECRET) =>
      request(app)
        .post('/webhooks/okta')
        .set('Authorization', authorization)
        .set('Content-Type', 'application/json')
        .send(body),
    drain: () => engine.drain(),
    close: () => engine.close(),
  };
}

describe('Okta Event Hooks', () => {
  let target: ReferenceTarget;
  let hook: Harness;

  beforeAll(async () => {
    target = await startTarget();
    hook = await startHarness(target);
  });
  afterAll(async () => {
    await hook.close();
    await target.close();
  });

  it('answers the one-time verification whatever the header-name case, after checking the secret', async () => {
    for (const header of [
      'X-Okta-Verification-Challenge',
      'x-okta-verification-challenge',
      'X-OKTA-VERIFICATION-CHALLENGE',
    ]) {
      const res = await request(hook.app)
        .get('/webhooks/okta')
        .set('Authorization', HOOK_SECRET)
        .set(header, 'rBDrLmnRYx-CHALLENGE-0123');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ verification: 'rBDrLmnRYx-CHALLENGE-0123' });
    }
    const wrong = await request(hook.app)
      .get('/webhooks/okta')
      .set('Authorization', 'not-the-secret')
      .set('X-Okta-Verification-Challenge', 'x');
    expect(wrong.status).toBe(401);
    const missing = await request(hook.app).get('/webhooks/okta').set('Authorization', HOOK_SECRET);
    expect(missing.status).toBe(400);
  });

  it('refuses a wrong or missing secret with 401 and enqueues nothing', async () => {
    const before = await hook.producer.queue.getJobCountByTypes('wait', 'active', 'completed', 'delayed');
    const wrong = await hook.post(fixtureText('user-lifecycle-create.json'), `${HOOK_SECRET}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toEqual({ code: 'unauthorized', message: 'Wrong Authorization value' });
    const missing = await request(hook.app)
      .post('/webhooks/okta')
      .set('Content-Type', 'application/json')
      .send(fixtureText('user-lifecycle-create.json'));
    expect(missing.status).toBe(401);
    expect(await hook.producer.queue.getJobCountByTypes('wait', 'active', 'completed', 'delayed')).toBe(
      before,
    );
  });

  it('tolerates a delivery without events, refuses broken JSON, and is off without OKTA_HOOK_SECRET', async () => {
    expect((await hook.post(JSON.stringify({ eventType: 'com.okta.event_hook', data: {} }))).status).toBe(
      200,
    );
    const broken = await hook.post('{"data":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_input');
    const { config, store } = hook.engine.bridge;
    const off = { ...config, inbound: { ...config.inbound, oktaHookSecret: '' } };
    const app = buildApp({
      config: off,
      logger: silentLogger(),
      metrics: createMetrics(),
      redis: store.redis,
      routes: webhookRoutes({ config: off, api: store.api, oktaProducer: hook.producer }),
    });
    const res = await request(app).get('/webhooks/okta').set('X-Okta-Verification-Challenge', 'x');
    expect([res.status, res.body.error.code]).toEqual([404, 'not_enabled']);
  });

  it('replays every handled event type into the expected users, states and memberships', async () => {
    const story = [
      'group-lifecycle-create.json',
      'user-lifecycle-create.json',
      'user-lifecycle-activate.json',
      'group-user-membership-add.json',
      'user-account-update-profile.json',
      'user-lifecycle-suspend.json',
      'user-lifecycle-unsuspend.json',
      'group-profile-updated.json',
      'batch.json',
      'group-user-membership-remove.json',
      'user-lifecycle-deactivate.json',
      'group-lifecycle-delete.json',
      'user-lifecycle-delete.json',
    ];
    for (const name of story) {
      const res = await hook.post(fixtureText(name));
      expect(res.status, name).toBe(200);
      await hook.drain();
    }
    const queued = await hook.producer.queue.getJobCountByTypes('completed', 'wait', 'delayed', 'failed');
    for (const name of ['null-target.json', 'unsubscribed-type.json', 'failed-outcome.json']) {
      expect((await hook.post(fixtureText(name))).status, name).toBe(200);
    }
    expect(await hook.producer.queue.getJobCountByTypes('completed', 'wait', 'delayed', 'failed')).toBe(
      queued,
    );
    await hook.drain();

    const ada = target.findUserByUserName('ada.byron@example.com');
    const luca = target.findUserByUserName('luca.dasilva@example.com');
    const grace = target.findUserByUserName('grace.hopper@example.com');
    const tom = target.findUserByUserName('tom.kilburn@example.com');
    expect(ada).toMatchObject({
      externalId: '00uadalovel0x7a1b2c3',
      active: true,
      name: { givenName: 'Ada', familyName: 'Byron' },
      emails: [{ value: 'ada.byron@example.com', primary: true }],
    });
    expect(luca).toMatchObject({ active: true, name: { givenName: 'Luca', familyName: 'da Silva' } });
    expect(grace).toMatchObject({ active: false });
    expect(tom).toMatchObject({ active: false });
    const engineering = target.findGroupByDisplayName('Engineering Team');
    expect(engineering?.externalId).toBe('00gengineer0x7a1b2c3');
    expect(engineering?.members.map((m) => m.value).sort()).toEqual([ada?.id, luca?.id].sort());
    expect(target.findGroupByDisplayName('Sales')).toBeUndefined();
    expect(target.groups()).toHaveLength(1);
  });

  it('keeps the newest state when events arrive out of order, and applies a redelivery once', async () => {
    const user = oktaUser('00uorder000000000001', 'orla.order@example.com', 'Orla Order');
    const create = eventLike('user-lifecycle-create.json', 'order-1', '2024-03-02T08:00:00.000Z', [user]);
    const activate = eventLike('user-lifecycle-activate.json', 'order-2', '2024-03-02T08:00:05.000Z', [user]);
    const deactivate = eventLike('user-lifecycle-deactivate.json', 'order-3', '2024-03-02T08:00:10.000Z', [
      user,
    ]);
    const newest = delivery([deactivate]);
    const [first, second] = await Promise.all([hook.post(newest), hook.post(newest)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await hook.drain();
    expect((await hook.post(delivery([activate, create]))).status).toBe(200);
    await hook.drain();
    expect(target.findUserByUserName('orla.order@example.com')).toMatchObject({ active: false });

    // Past the queue's own memory of the job, the store still knows the uuid.
    await hook.producer.queue.clean(0, 1000, 'completed');
    expect((await hook.post(newest)).status).toBe(200);
    await hook.drain();
    const jobs = await hook.producer.queue.getJobs(['completed']);
    expect(jobs.map((j) => j.returnvalue as unknown)).toEqual([{ result: 'duplicate' }]);
    const history = await hook.engine.bridge.store.state.history('user', '00uorder000000000001', 50);
    expect(history.filter((h) => h.type === 'signal')).toHaveLength(1);
  });
});

describe('Okta Event Hooks with profile enrichment', () => {
  let target: ReferenceTarget;
  let okta: OktaApiServer;
  let hook: Harness;

  beforeAll(async () => {
    target = await startTarget();
    okta = await startOktaApi({ pageSize: 2 });
    hook = await startHarness(target, okta);
  });
  afterAll(async () => {
    await hook.close();
    await okta.close();
    await target.close();
  });

  it("takes users and groups from Okta's API, and memberships as Okta has them now", async () => {
    const ada = '00uadalovel0x7a1b2c3';
    const eng = '00gengineer0x7a1b2c3';
    okta.setUser({
      id: ada,
      status: 'ACTIVE',
      profile: {
        login: 'ada@corp.example',
        email: 'ada.l@corp.example',
        firstName: 'Augusta Ada',
        lastName: 'King',
      },
    });
    okta.setGroup({ id: eng, name: 'Engineering (Okta)' });
    for (const id of ['00gother000000000001', '00gother000000000002', '00gother000000000003']) {
      okta.setGroup({ id, name: id });
      okta.addMember(id, ada);
    }
    okta.addMember(eng, ada);
    for (const name of [
      'group-lifecycle-create.json',
      'user-lifecycle-create.json',
      'group-user-membership-add.json',
    ]) {
      expect((await hook.post(fixtureText(name))).status).toBe(200);
    }
    await hook.drain();
    const user = target.findUserByUserName('ada@corp.example');
    expect(user).toMatchObject({
      externalId: ada,
      active: true,
      name: { givenName: 'Augusta Ada', familyName: 'King' },
      emails: [{ value: 'ada.l@corp.example', primary: true }],
    });
    const group = target.findGroupByDisplayName('Engineering (Okta)');
    expect(group?.members.map((m) => m.value)).toEqual([user?.id]);
    const paged = okta.requests().filter((r) => r.path.startsWith(`/api/v1/users/${ada}/groups`));
    expect(paged.map((r) => r.path)).toEqual([
      `/api/v1/users/${ada}/groups`,
      `/api/v1/users/${ada}/groups?limit=2&after=00gother000000000001`,
    ]);

    // An add delivered after the user already left the group: Okta's answer wins.
    okta.removeMember(eng, ada);
    const lateAdd = eventLike('group-user-membership-add.json', 'late-add-1', '2024-03-01T10:00:30.000Z');
    expect((await hook.post(delivery([lateAdd]))).status).toBe(200);
    await hook.drain();
    expect(target.findGroupByDisplayName('Engineering (Okta)')?.members).toEqual([]);
  });

  it("waits out Okta's 429 until X-Rate-Limit-Reset without failing the job", async () => {
    const id = '00uratelimited000001';
    okta.setUser({ id, status: 'SUSPENDED', profile: { login: 'rita@corp.example', firstName: 'Rita' } });
    okta.rateLimitNext(1, 1);
    const event = eventLike('user-lifecycle-suspend.json', 'rate-1', '2024-03-01T11:00:00.000Z', [
      oktaUser(id, 'rita@corp.example', 'Rita'),
    ]);
    expect((await hook.post(delivery([event]))).status).toBe(200);
    await hook.drain();
    expect(target.findUserByUserName('rita@corp.example')).toMatchObject({ active: false });
    const calls = okta.requests().filter((r) => r.path === `/api/v1/users/${id}`);
    expect(calls.map((r) => r.status)).toEqual([429, 200]);
    const [job] = await hook.producer.queue
      .getJobs(['completed'])
      .then((jobs) => jobs.filter((j) => j.data.uuid === 'rate-1'));
    expect(job?.attemptsMade).toBe(1);
    expect(await hook.producer.queue.getJobCounts('failed')).toEqual({ failed: 0 });
  });
});

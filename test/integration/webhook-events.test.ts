import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { silentLogger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import type { ReferenceTarget } from 'scim-reference-target';
import type { DesiredStateApi } from '../../src/sources/desired-state.api.js';
import type { OktaWebhookDeps } from '../../src/sources/okta/okta.webhook.js';
import { signatureHeader } from '../../src/sources/events/signature.js';
import { webhookRoutes } from '../../src/sources/webhook-routes.js';
import type { RedisClient } from '../../src/store/redis-connection.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { testConfig } from '../support/config.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { OktaEventProducer } from '../../src/queue/okta-events.producer.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';

// Real: Redis, the desired-state store and its Lua batch, BullMQ workers, the reference target over
// HTTP, the express app driven by supertest. The signature's clock is the real one.
const SECRET = 'webhook-secret-for-tests-0001';

function webhookApp(
  config: Config,
  redis: RedisClient,
  api: DesiredStateApi,
  oktaProducer: OktaWebhookDeps['producer'] = { enqueue: async () => undefined },
): Express {
  return buildApp({
    config,
    logger: silentLogger(),
    metrics: createMetrics(),
    redis,
    routes: webhookRoutes({ config, api, oktaProducer }),
  });
}

function postSigned(app: Express, body: unknown, options: { secret?: string; t?: number } = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const t = options.t ?? Math.floor(Date.now() / 1000);
  return request(app)
    .post('/webhooks/events')
    .set('Content-Type', 'application/json')
    .set('X-Bridge-Signature', signatureHeader(options.secret ?? SECRET, raw, t))
    .send(raw);
}

const userEvent = (eventId: string, userId: string, extra: Record<string, unknown> = {}) => ({
  id: eventId,
  type: 'user.upserted',
  data: { id: userId, userName: `${userId}@example.com`, ...extra },
});

describe('generic signed events', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let app: Express;
  let seq = 0;
  const unique = (label: string) => `${label}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  const desiredUser = (id: string) => engine.bridge.store.desired.getUser(id);
  const seen = (eventId: string) =>
    engine.bridge.store.redis.exists(engine.bridge.store.keys.seenEvent('events', eventId));

  beforeAll(async () => {
    target = await startTarget();
    engine = await startEngine(target, { WEBHOOK_SECRET: SECRET });
    app = webhookApp(engine.bridge.config, engine.bridge.store.redis, engine.bridge.store.api);
  });
  afterAll(async () => {
    await engine.close();
    await target.close();
  });

  it('accepts a signed event (202) and refuses bad, stale, future, missing and altered ones (401)', async () => {
    const id = unique('u');
    const event = userEvent(unique('e'), id);
    const now = Math.floor(Date.now() / 1000);
    const refusals = [
      await postSigned(app, event, { secret: 'not-the-secret-000000001' }),
      await postSigned(app, event, { t: now - 600 }),
      await postSigned(app, event, { t: now + 600 }),
      await request(app).post('/webhooks/events').set('Content-Type', 'application/json').send(event),
    ];
    const raw = JSON.stringify(event);
    const altered = raw.replace(`${id}@`, `${id.slice(0, -1)}X@`);
    expect(altered).toHaveLength(raw.length);
    refusals.push(
      await request(app)
        .post('/webhooks/events')
        .set('Content-Type', 'application/json')
        .set('X-Bridge-Signature', signatureHeader(SECRET, raw, now))
        .send(altered),
    );
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(refusals.map((r) => r.body.error.code)).toEqual(Array(5).fill('unauthorized'));
    expect(refusals[3]?.body.error.message).toBe('Missing X-Bridge-Signature header');
    expect(await desiredUser(id)).toBeUndefined();
    expect(await seen(event.id)).toBe(0);

    const rotated = signatureHeader(['retired-secret-00000001', SECRET], raw, now);
    const ok = await request(app)
      .post('/webhooks/events')
      .set('Content-Type', 'application/json')
      .set('X-Bridge-Signature', rotated)
      .send(raw);
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ accepted: 1, duplicates: 0 });
    expect(await desiredUser(id)).toMatchObject({ userName: `${id}@example.com`, active: true });
  });

  it('rejects a batch of 100 with one bad event whole, naming it, and applies nothing', async () => {
    const ids = Array.from({ length: 100 }, () => unique('u'));
    const events = ids.map((id) => userEvent(unique('e'), id));
    events[57] = { ...userEvent('bad-57', ids[57] ?? ''), data: { id: ids[57], userName: 42 } } as never;
    const res = await postSigned(app, { events });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/nothing was applied/),
    });
    expect(res.body.error.problems).toEqual([
      'events[57] (id "bad-57") data.userName: Invalid input: expected string, received number',
    ]);
    const found = await Promise.all(ids.map(desiredUser));
    expect(found.filter(Boolean)).toHaveLength(0);
    expect(await seen(events[0]?.id ?? '')).toBe(0);
  });

  it('acknowledges and ignores redelivered events, within and across batches', async () => {
    const events = [0, 1, 2].map(() => userEvent(unique('e'), unique('u')));
    expect((await postSigned(app, { events })).body).toEqual({ accepted: 3, duplicates: 0 });
    expect((await postSigned(app, { events })).body).toEqual({ accepted: 0, duplicates: 3 });
    const fresh = userEvent(unique('e'), unique('u'));
    const mixed = await postSigned(app, { events: [events[0], fresh, fresh, events[2]] });
    expect(mixed.status).toBe(202);
    expect(mixed.body).toEqual({ accepted: 1, duplicates: 3 });
  });

  it('applies a burst of the same event from concurrent requests once', async () => {
    const id = unique('u');
    const event = userEvent(unique('e'), id, { name: { givenName: 'Burst' } });
    const responses = await Promise.all(Array.from({ length: 12 }, () => postSigned(app, event)));
    expect(responses.map((r) => r.status)).toEqual(Array(12).fill(202));
    const accepted = responses.reduce((sum, r) => sum + (r.body.accepted as number), 0);
    const duplicates = responses.reduce((sum, r) => sum + (r.body.duplicates as number), 0);
    expect([accepted, duplicates]).toEqual([1, 11]);
    const history = await engine.bridge.store.state.history('user', id, 50);
    expect(history.filter((h) => h.type === 'signal')).toHaveLength(1);
  });

  it('counts each of many concurrent requests on its own when their writes are shared', async () => {
    const shared = userEvent(unique('e'), unique('u'));
    const own = Array.from({ length: 10 }, () => userEvent(unique('e'), unique('u')));
    const responses = await Promise.all(own.map((event) => postSigned(app, { events: [shared, event] })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(202));
    for (const r of responses) expect(r.body.accepted + r.body.duplicates).toBe(2);
    const sum = (key: 'accepted' | 'duplicates') =>
      responses.reduce((n, r) => n + (r.body[key] as number), 0);
    expect([sum('accepted'), sum('duplicates')]).toEqual([11, 9]);
    const users = await Promise.all([shared, ...own].map((e) => desiredUser(e.data.id)));
    expect(users.every(Boolean)).toBe(true);
  });

  it('answers 413 over 1 MiB, 415 for a non-JSON body, 400 for broken JSON', async () => {
    const big = JSON.stringify(userEvent('big', 'big', { note: 'x'.repeat(1_100_000) }));
    const tooLarge = await postSigned(app, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
    const t = Math.floor(Date.now() / 1000);
    const text = await request(app)
      .post('/webhooks/events')
      .set('Content-Type', 'text/plain')
      .set('X-Bridge-Signature', signatureHeader(SECRET, 'hello', t))
      .send('hello');
    expect(text.status).toBe(415);
    const broken = await postSigned(app, '{"id":');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toEqual({ code: 'invalid_input', message: 'The body is not valid JSON' });
  });

  it('is disabled (404 not_enabled) while WEBHOOK_SECRET is unset', async () => {
    const config = {
      ...engine.bridge.config,
      inbound: { ...engine.bridge.config.inbound, webhookSecret: '' },
    };
    const disabled = webhookApp(config, engine.bridge.store.redis, engine.bridge.store.api);
    const res = await postSigned(disabled, userEvent('e-x', 'u-x'));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_enabled');
  });

  it('converges the target: users, states, groups and memberships, whatever arrives first', async () => {
    const batch = JSON.parse(
      readFileSync(new URL('../fixtures/events/directory-batch.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect((await postSigned(app, batch)).body).toEqual({ accepted: 4, duplicates: 0 });
    // A membership for a user and a group the bridge does not hold yet: kept until they arrive.
    const early = await postSigned(app, {
      events: [{ id: 'late-1', type: 'group.members.added', data: { id: 'hr-g-ops', members: ['hr-1003'] } }],
    });
    expect(early.body).toEqual({ accepted: 1, duplicates: 0 });
    await engine.drain();
    expect(target.findGroupByDisplayName('Ops')).toBeUndefined();
    await postSigned(app, {
      events: [
        { id: 'late-2', type: 'group.upserted', data: { id: 'hr-g-ops', displayName: 'Ops' } },
        userEvent('late-3', 'hr-1003'),
      ],
    });
    const deactivate = JSON.parse(
      readFileSync(new URL('../fixtures/events/user-deactivated.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect((await postSigned(app, deactivate)).body).toEqual({ accepted: 1, duplicates: 0 });
    await engine.drain();

    const ada = target.findUserByUserName('ada@example.com');
    const grace = target.findUserByUserName('grace@example.com');
    const late = target.findUserByUserName('hr-1003@example.com');
    expect(ada).toMatchObject({
      externalId: 'hr-1001',
      active: true,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
    });
    expect(grace).toMatchObject({ externalId: 'hr-1002', active: false });
    const members = (name: string) =>
      (target.findGroupByDisplayName(name)?.members ?? []).map((m) => m.value).sort();
    expect(members('Engineering')).toEqual([ada?.id, grace?.id].sort());
    expect(members('Ops')).toEqual([late?.id]);

    await postSigned(app, {
      events: [
        { id: 'end-1', type: 'group.members.removed', data: { id: 'hr-g-eng', members: ['hr-1002'] } },
        { id: 'end-2', type: 'user.deleted', data: { id: 'hr-1003' } },
        { id: 'end-3', type: 'group.deleted', data: { id: 'hr-g-ops' } },
      ],
    });
    await engine.drain();
    expect(members('Engineering')).toEqual([ada?.id]);
    expect(target.findGroupByDisplayName('Ops')).toBeUndefined();
    expect(target.getUser(late?.id ?? '')).toMatchObject({ active: false });
  });
});

// Real: a private redis-server of this test's own, killed and restarted here.
describe('webhooks while Redis is down', () => {
  let redisServer: EmbeddedRedis;
  let store: StoreSide;
  let producer: OktaEventProducer;
  let app: Express;
  const oktaSecret = 'okta-hook-secret-for-tests-01';

  beforeAll(async () => {
    redisServer = await startEmbeddedRedis();
    const config = testConfig({
      REDIS_URL: redisServer.url,
      WEBHOOK_SECRET: SECRET,
      OKTA_HOOK_SECRET: oktaSecret,
    });
    store = await createStoreSide(config, 'producer', silentLogger());
    producer = new OktaEventProducer(store.redis, { queuePrefix: store.keys.queuePrefix() });
    app = webhookApp(config, store.redis, store.api, producer);
  });
  afterAll(async () => {
    await producer.close();
    await store.close();
    await redisServer.stop();
  });

  it('answers 503 at once, and applies the same request once Redis is back', async () => {
    const event = userEvent('down-1', 'down-user');
    const delivery = readFileSync(
      new URL('../fixtures/okta-hooks/user-lifecycle-create.json', import.meta.url),
      'utf8',
    );
    const deliver = () =>
      request(app)
        .post('/webhooks/okta')
        .set('Authorization', oktaSecret)
        .set('Content-Type', 'application/json')
        .send(delivery);
    redisServer.kill();
    const down = await postSigned(app, event);
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('store_unavailable');
    expect((await deliver()).status).toBe(503);
    await redisServer.restart();
    await expect.poll(async () => (await postSigned(app, event)).status, { timeout: 10_000 }).toBe(202);
    expect(await store.desired.getUser('down-user')).toMatchObject({ userName: 'down-user@example.com' });
    expect((await postSigned(app, event)).body).toEqual({ accepted: 0, duplicates: 1 });
    // Okta retries a delivery answered 503: once Redis is back, it is enqueued (once).
    let last: request.Response | undefined;
    await expect
      .poll(
        async () => {
          last = await deliver();
          return last.status;
        },
        { timeout: 20_000 },
      )
      .toBe(200)
      .catch((error: unknown) => {
        throw new Error(`Okta delivery still refused: ${last?.status} ${JSON.stringify(last?.body)}`, {
          cause: error,
        });
      });
    expect(await producer.queue.getJobCounts('wait')).toEqual({ wait: 1 });
  });
});

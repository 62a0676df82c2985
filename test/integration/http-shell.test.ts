import request from 'supertest';
import { CATALOG } from '../../src/sources/registry.js';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { secretValues } from '../../src/config/mask-config.js';
import { bearerAuth } from '../../src/http/auth.js';
import { jsonBody } from '../../src/http/body.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../src/ops/embedded-redis.js';
import { closeRedis, createRedis, type RedisClient } from '../../src/store/redis-connection.js';
import { testConfig } from '../support/config.js';
import { logSink } from '../support/log-sink.js';

// Real: express app, a private redis-server (stopped and restarted here), pino writing JSON lines.
describe('HTTP shell', () => {
  let redisServer: EmbeddedRedis;
  let redis: RedisClient;
  const adminToken = 'admin-token-abcdefghijklmnop';
  const config = () => testConfig({ REDIS_URL: redisServer.url, ADMIN_TOKEN: adminToken, METRICS_TOKEN: '' });

  beforeAll(async () => {
    redisServer = await startEmbeddedRedis();
    redis = createRedis(config().redis, 'producer');
    redis.on('error', () => undefined);
  });
  afterAll(async () => {
    await closeRedis(redis);
    await redisServer.stop();
  });

  function app(sink = logSink()) {
    const cfg = config();
    const echo = Router();
    echo.use(bearerAuth({ token: () => cfg.inbound.adminToken, realm: 'admin' }));
    echo.post('/echo', ...jsonBody(cfg.http.bodyLimitBytes), (req, res) => {
      res.status(201).json({ got: req.body as unknown });
    });
    return buildApp({
      config: cfg,
      logger: sink.logger,
      metrics: createMetrics(),
      redis,
      routes: [{ path: '/admin', router: echo }],
    });
  }

  it('answers /healthz and /readyz, and /readyz turns 503 within a second while Redis is down', async () => {
    const server = app();
    await request(server).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(server).get('/readyz').expect(200);
    expect(ready.body.redis).toEqual({ state: 'reachable' });

    redisServer.kill();
    const started = Date.now();
    const down = await request(server).get('/readyz').expect(503);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(down.body.status).toBe('unavailable');

    await redisServer.restart();
    await expect
      .poll(async () => (await request(server).get('/readyz')).status, { timeout: 10_000 })
      .toBe(200);
  });

  it('refuses wrong and missing bearer tokens with a JSON error', async () => {
    const server = app();
    const missing = await request(server).post('/admin/echo').send({ a: 1 }).expect(401);
    expect(missing.body).toEqual({ error: { code: 'unauthorized', message: 'Missing bearer token' } });
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="admin"');
    await request(server).post('/admin/echo').set('Authorization', 'Bearer nope').send({}).expect(401);
    await request(server)
      .post('/admin/echo')
      .set('Authorization', `Bearer ${adminToken}`)
      .send({ a: 1 })
      .expect(201, { got: { a: 1 } });
  });

  it('answers 413 over the body limit, 415 for non-JSON, 400 for broken JSON, 404 JSON elsewhere', async () => {
    const server = app();
    const auth = { Authorization: `Bearer ${adminToken}` };
    const big = { blob: 'x'.repeat(1_100_000) };
    const tooLarge = await request(server).post('/admin/echo').set(auth).send(big).expect(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
    await request(server)
      .post('/admin/echo')
      .set(auth)
      .set('Content-Type', 'text/plain')
      .send('hello')
      .expect(415);
    const broken = await request(server)
      .post('/admin/echo')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"a":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_input');
    const missing = await request(server).get('/nowhere').expect(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('echoes or assigns request ids and never logs a configured secret', async () => {
    const cfg = config();
    const sink = logSink(secretValues(cfg, CATALOG));
    const server = app(sink);
    const res = await request(server)
      .post(`/admin/echo?token=${adminToken}`)
      .set('Authorization', `Bearer ${adminToken}`)
      .set('X-Request-Id', 'req-42')
      .send({ password: adminToken, note: `carrying ${cfg.target.token}` })
      .expect(201);
    expect(res.headers['x-request-id']).toBe('req-42');
    sink.logger.info({ config: cfg }, `a message quoting ${cfg.target.token}`);
    const text = sink.text();
    expect(text).toContain('req-42');
    for (const secret of secretValues(cfg, CATALOG)) expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
  });

  it('serves Prometheus metrics with Node defaults and counts inbound requests', async () => {
    const server = app();
    await request(server).post('/admin/echo').send({}).expect(401);
    const metrics = await request(server).get('/metrics').expect(200);
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
    expect(metrics.text).toContain('scim_bridge_inbound_requests_total{source="admin",status="401"} 1');
  });
});

import request from 'supertest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { listen, type HttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { scimRouter } from '../../src/sources/scim/scim-router.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from './config.js';
import { deleteKeys } from './redis.js';

/**
 * The bridge's SCIM server alone. Real: express, the SCIM router, Redis (the shared test server
 * under a fresh prefix, or the one given), the desired-state store and its BullMQ queue, a listener
 * on port 0. No workers and no target: every answer comes from Redis, in the test's own process, so
 * a request that crashed the process would end the test run.
 */

export const TOKEN = 'scim-fixture-token-0123456789';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

export interface ScimFixture {
  config: Config;
  store: StoreSide;
  server: HttpServer;
  get(path: string, query?: Record<string, string>): request.Test;
  post(path: string, body: unknown): request.Test;
  put(path: string, body: unknown): request.Test;
  patch(path: string, ...operations: unknown[]): request.Test;
  createUser(userName: string, attributes?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** The SCIM router on its own listener (port 0), over a bridge's store side, with one token. */
export async function serveScim(store: StoreSide, config: Config, token: string): Promise<HttpServer> {
  const router = scimRouter({
    token: () => token,
    api: store.api,
    queries: store.scimQueries,
    now: () => store.clock.now(),
  });
  const app = buildApp({
    config,
    logger: silentLogger(),
    metrics: createMetrics(),
    redis: store.redis,
    routes: [{ path: '/scim/v2', router }],
  });
  return listen(app, 0, '127.0.0.1');
}

/** `redisUrl`: another Redis than the shared test server (one a test may stop). */
export async function startScimFixture(redisUrl?: string): Promise<ScimFixture> {
  const config = testConfig({ INBOUND_SCIM_TOKEN: TOKEN, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  const store = await createStoreSide(config, 'producer', silentLogger());
  const server = await serveScim(store, config, TOKEN);
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const http = () => request(server.url);
  const send = (method: 'post' | 'put', path: string, body: unknown) => {
    const url = `/scim/v2${path}`;
    const call = method === 'post' ? http().post(url) : http().put(url);
    return call.set(auth).set('Content-Type', 'application/scim+json').send(JSON.stringify(body));
  };
  const post = (path: string, body: unknown) => send('post', path, body);
  return {
    config,
    store,
    server,
    get: (path, query = {}) => http().get(`/scim/v2${path}`).query(query).set(auth),
    post,
    put: (path, body) => send('put', path, body),
    patch: (path, ...operations) =>
      http()
        .patch(`/scim/v2${path}`)
        .set(auth)
        .send({ schemas: [PATCH_OP], Operations: operations }),
    createUser: async (userName, attributes = {}) => {
      const res = await post('/Users', { schemas: [USER_SCHEMA], userName, ...attributes });
      if (res.status !== 201) throw new Error(`creating ${userName}: ${res.status} ${res.text}`);
      return res.body.id as string;
    },
    close: async () => {
      await server.close(100);
      await store.close();
      if (!redisUrl) await deleteKeys(config.redis.keyPrefix);
    },
  };
}

/** `count` copies of `term` joined by `joiner`, e.g. 45,000 `userName eq "…"` joined by ` or `. */
export function repeatTerms(count: number, term: (index: number) => string, joiner: string): string {
  return Array.from({ length: count }, (_, index) => term(index)).join(joiner);
}

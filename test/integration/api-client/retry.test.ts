import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ApiClientOptions } from '../../../src/api-client/api-client.js';
import { bearerAuth } from '../../../src/api-client/auth/auth-strategy.js';
import { googleAnswers } from '../../../src/api-client/google-answers.js';
import { isBridgeError, type BridgeError } from '../../../src/domain/errors.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import { json, startScripted, type Script, type ScriptedServer } from '../../support/scripted-http.js';

// The API client's one retry policy against a real node:http server that scripts its own failures
// request by request. Real: HTTP, undici, the client, the metrics registry. Nothing is faked.

const servers: ScriptedServer[] = [];
const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Script): Promise<ScriptedServer> {
  const server = await startScripted(script);
  servers.push(server);
  return server;
}

function clientOf(server: ScriptedServer, options: Partial<ApiClientOptions> = {}): ApiClient {
  const client = new ApiClient({
    label: 'the test API',
    input: 'test',
    baseUrl: `${server.url}/api/`,
    auth: bearerAuth(() => 'sekret-token-1'),
    retry: { baseDelayMs: 10, maxDelayMs: 40 },
    ...options,
  });
  clients.push(client);
  return client;
}

async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

const gaps = (server: ScriptedServer) =>
  server.requests.slice(1).map((r, i) => r.at - (server.requests[i]?.at ?? 0));

describe('the retry policy', () => {
  it('retries 500, 502, 503 and 504 with back-off, and counts each request per input', async () => {
    const statuses = [500, 502, 503, 504];
    const server = await serve((_, res, n) => json(res, statuses[n] ?? 200, { n }));
    const metrics = createMetrics();
    const answer = await clientOf(server, { metrics }).getJson('users');
    expect(answer.body).toEqual({ n: 4 });
    expect(server.requests.map((r) => r.path)).toEqual(Array(5).fill('/api/users'));
    const counted = (await metrics.sourceRequests.get()).values.map((v) => [v.labels.status, v.value]);
    expect(Object.fromEntries(counted)).toEqual({ '500': 1, '502': 1, '503': 1, '504': 1, '200': 1 });
    expect((await metrics.sourceRequests.get()).values.every((v) => v.labels.input === 'test')).toBe(true);
    const timed = (await metrics.sourceRequestDuration.get()).values.find((v) =>
      v.metricName?.endsWith('_count'),
    );
    expect(timed?.value).toBe(5);
  });

  it('gives up after its attempts: source_unavailable, retryable, naming the route and never the query', async () => {
    const server = await serve((_, res) => json(res, 502, { message: 'bad gateway upstream' }));
    const client = clientOf(server, { retry: { baseDelayMs: 10, maxAttempts: 3 } });
    const error = await failure(client.getJson('users?after=cursor-secret-77'));
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: true, status: 502 });
    expect(error.detail).toBe('bad gateway upstream');
    expect(error.message).toBe('The test API answered 502 to GET /api/users: bad gateway upstream');
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 4xx: source_invalid with the status and the vendor words', async () => {
    const server = await serve((_, res) => json(res, 400, { errorSummary: 'Invalid search' }));
    const error = await failure(clientOf(server).getJson('users'));
    expect(error).toMatchObject({ code: 'source_invalid', status: 400, detail: 'Invalid search' });
    expect(server.requests).toHaveLength(1);
  });

  it('waits out a 429 for its Retry-After in delay-seconds, without spending an attempt', async () => {
    const server = await serve((_, res, n) =>
      n === 0 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, { ok: true }),
    );
    const answer = await clientOf(server, { retry: { maxAttempts: 1 } }).getJson('users');
    expect(answer.body).toEqual({ ok: true });
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(950);
  });

  it("waits out a 429 until its Retry-After HTTP date, measured against the answer's own Date", async () => {
    // The server's clock is a day behind ours: read against ours, the date is long past.
    const server = await serve((_, res, n) => {
      const serverNow = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;
      if (n > 0) return json(res, 200, { ok: true });
      const date = new Date(serverNow).toUTCString();
      json(res, 429, {}, { date, 'retry-after': new Date(serverNow + 2000).toUTCString() });
    });
    await clientOf(server).getJson('users');
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(1950);
  });

  it('caps what Retry-After asks for', async () => {
    const server = await serve((_, res, n) =>
      n === 0 ? json(res, 503, {}, { 'retry-after': '3600' }) : json(res, 200, {}),
    );
    await clientOf(server, { retry: { baseDelayMs: 10, maxRetryAfterMs: 300 } }).getJson('users');
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(290);
    expect(gaps(server)[0]).toBeLessThan(3000);
  });

  it('waits out a bounded number of 429s, then fails rate_limited on the source side with the wait asked', async () => {
    const server = await serve((_, res) => json(res, 429, {}, { 'retry-after': '0' }));
    const error = await failure(clientOf(server, { retry: { throttleWaits: 2 } }).getJson('users'));
    expect(error).toMatchObject({ code: 'rate_limited', side: 'source', status: 429, retryAfterMs: 0 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not hold a request past its total wait: a longer Retry-After fails at once, reporting it', async () => {
    const server = await serve((_, res) => json(res, 429, {}, { 'retry-after': '5' }));
    const client = clientOf(server, { retry: { maxTotalWaitMs: 1000 } });
    const error = await failure(client.getJson('users'));
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 5000 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a connection reset, then answers', async () => {
    const server = await serve((_, res, n) => void (n === 0 ? res.socket?.destroy() : json(res, 200, { n })));
    expect((await clientOf(server).getJson('users')).body).toEqual({ n: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a timeout, and reports the network after the attempts as source_unavailable', async () => {
    const server = await serve(() => undefined); // never answers
    const client = clientOf(server, { timeoutMs: 150, retry: { baseDelayMs: 10, maxAttempts: 2 } });
    const error = await failure(client.getJson('users'));
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: true });
    expect(error.message).toBe('Cannot reach the test API: UND_ERR_HEADERS_TIMEOUT (GET /api/users)');
    expect(server.requests).toHaveLength(2);
  });

  it('never retries a POST blindly; retries one declared idempotent; waits out its 429 either way', async () => {
    const server = await serve((_, res, n) => (n % 2 === 0 ? json(res, 503, {}) : json(res, 200, { n })));
    const client = clientOf(server);
    expect((await failure(client.postForm('token', { a: '1' }))).status).toBe(503);
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    expect((await client.postForm('token', { a: '1' }, { idempotent: true })).body).toEqual({ n: 1 });
    expect(server.requests.map((r) => r.body)).toEqual(['a=1', 'a=1']);
    server.requests.length = 0;
    server.script = (_, res, n) =>
      n === 0 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 200, {});
    await client.postForm('token', { a: '1' });
    expect(server.requests).toHaveLength(2);
  });

  it('ends a wait as soon as the read is aborted, with the abort reason', async () => {
    const controller = new AbortController();
    const server = await serve((_, res) => json(res, 503, {}, { 'retry-after': '30' }));
    // Aborts once the 503 is counted: the client is then waiting out its Retry-After.
    const metrics = {
      sourceRequests: { inc: () => void setImmediate(() => controller.abort(new Error('read cancelled'))) },
      sourceRequestDuration: { observe: () => undefined },
    };
    const started = Date.now();
    const client = clientOf(server, { metrics });
    await expect(client.getJson('users', { signal: controller.signal })).rejects.toThrow('read cancelled');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });

  it("takes Google's 403 throttling for a 429, and its other 403s as refusals", async () => {
    const throttled = {
      error: { code: 403, errors: [{ domain: 'usageLimits', reason: 'userRateLimitExceeded' }] },
    };
    const server = await serve((_, res, n) => (n === 0 ? json(res, 403, throttled) : json(res, 200, {})));
    const client = clientOf(server, {
      vendor: googleAnswers,
      retry: { defaultThrottleWaitMs: 50, maxAttempts: 1 },
    });
    await client.getJson('users');
    expect(server.requests).toHaveLength(2);

    // Without a wait asked, throttling waits grow: half of 40 ms × 2^n and up to as much again.
    server.requests.length = 0;
    server.script = (_, res, n) => (n < 3 ? json(res, 403, throttled) : json(res, 200, {}));
    const backingOff = clientOf(server, {
      vendor: googleAnswers,
      retry: { defaultThrottleWaitMs: 40, throttleBackoff: true, throttleWaits: 3, maxDelayMs: 1000 },
    });
    await backingOff.getJson('users');
    const waits = gaps(server);
    expect(waits).toHaveLength(3);
    waits.forEach((gap, n) => expect(gap).toBeGreaterThanOrEqual(20 * 2 ** n - 2));
    expect(waits[2]).toBeLessThan(1000);

    const forbidden = {
      error: {
        code: 403,
        message: 'Not Authorized to access this resource/api',
        errors: [{ domain: 'global', reason: 'forbidden' }],
      },
    };
    server.script = (_, res) => json(res, 403, forbidden);
    const refused = await failure(client.getJson('users'));
    expect(refused).toMatchObject({ code: 'source_unauthorized', retryable: false, status: 403 });
    expect(refused.detail).toBe('Not Authorized to access this resource/api');

    const daily = { error: { code: 403, errors: [{ domain: 'usageLimits', reason: 'dailyLimitExceeded' }] } };
    server.requests.length = 0;
    server.script = (_, res) => json(res, 403, daily);
    expect(await failure(client.getJson('users'))).toMatchObject({
      code: 'source_unavailable',
      retryable: true,
    });
    expect(server.requests).toHaveLength(1);
  });
});

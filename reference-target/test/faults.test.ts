import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ReferenceTarget } from '../src/index.js';
import { ERROR_SCHEMA, newUser, patchOp, scim, startTarget } from './scim-http.js';

// Real reference target over real HTTP; the faults are its own scripted ones. Each test switches
// a fault on, observes it, switches it off and observes recovery. One test fakes the clock (Date
// only: timers and sockets stay real); the others wait on the target's state, never a fixed time.

async function statuses(target: ReferenceTarget, count: number): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index += 1) result.push((await scim(target, 'GET', '/Users')).status);
  return result;
}

/** The error code of a request that failed at the connection level (ECONNREFUSED, ECONNRESET…). */
async function connectionFailure(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? 'failed';
  }
  return 'answered';
}

describe('scripted faults', () => {
  it('adds latency to every SCIM request, with jitter, until switched off', async () => {
    const target = await startTarget();
    target.faults.setLatency({ ms: 150, jitterMs: 50 });
    await scim(target, 'GET', '/Users');
    await scim(target, 'GET', '/Users/nope');
    target.faults.setLatency(null);
    await scim(target, 'GET', '/Users');
    const [slow, slow404, fast] = target.stats().requests;
    expect(slow?.durationMs).toBeGreaterThanOrEqual(150);
    expect(slow?.durationMs).toBeLessThan(1000);
    expect(slow404?.durationMs).toBeGreaterThanOrEqual(150);
    expect(fast?.durationMs).toBeLessThan(150);
  });

  it('starts with latency from the latencyMs option', async () => {
    const target = await startTarget({ latencyMs: 120 });
    await scim(target, 'GET', '/ServiceProviderConfig');
    expect(target.stats().requests[0]?.durationMs).toBeGreaterThanOrEqual(120);
    expect(target.faults.current()).toEqual({ latency: { ms: 120 } });
  });

  it('answers requests over the rate limit with 429, Retry-After and a SCIM Error', async () => {
    const target = await startTarget();
    target.faults.setRateLimit({ rps: 5, retryAfterSeconds: 2 });
    const replies = await Promise.all(Array.from({ length: 8 }, () => scim(target, 'GET', '/Users')));
    const limited = replies.filter((reply) => reply.status === 429);
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(5);
    expect(limited).toHaveLength(3);
    for (const reply of limited) {
      expect(reply.headers.get('retry-after')).toBe('2');
      expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '429' });
    }
    expect(target.stats().requests.filter((request) => request.fault === 'rate-limit')).toHaveLength(3);
    target.faults.setRateLimit(null);
    expect(await statuses(target, 8)).toEqual(Array<number>(8).fill(200));
  });

  it('admits requests again once the one-second window has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const target = await startTarget();
    target.faults.setRateLimit({ rps: 2 });
    expect(await statuses(target, 3)).toEqual([200, 200, 429]);
    vi.setSystemTime(Date.now() + 999);
    expect(await statuses(target, 1)).toEqual([429]);
    vi.setSystemTime(Date.now() + 1);
    expect(await statuses(target, 3)).toEqual([200, 200, 429]);
  });

  it('fails a fraction of requests with the chosen status, before they change anything', async () => {
    const target = await startTarget();
    target.faults.setErrorRate({ fraction: 1, status: 503, retryAfterSeconds: 3 });
    const write = await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe('3');
    expect(write.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '503' });
    expect(target.users()).toEqual([]);
    target.faults.setErrorRate({ fraction: 1, status: 500 });
    expect(await statuses(target, 2)).toEqual([500, 500]);
    target.faults.setErrorRate(null);
    expect((await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') })).status).toBe(201);
  });

  it('makes the same fault decisions for the same seed, so a failing run can be replayed', async () => {
    const first = await startTarget({ seed: 1234 });
    const second = await startTarget({ seed: 1234 });
    const other = await startTarget({ seed: 99 });
    for (const target of [first, second, other]) target.faults.setErrorRate({ fraction: 0.5, status: 502 });
    const sequence = await statuses(first, 40);
    expect(sequence).toContain(502);
    expect(sequence).toContain(200);
    expect(await statuses(second, 40)).toEqual(sequence);
    expect(await statuses(other, 40)).not.toEqual(sequence);
    first.faults.reseed(1234);
    expect(await statuses(first, 40)).toEqual(sequence);
  });

  it('answers every SCIM request with 503 during a 503 outage', async () => {
    const target = await startTarget();
    await target.faults.setOutage({ mode: '503', retryAfterSeconds: 7 });
    const reply = await scim(target, 'GET', '/Users');
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('7');
    expect(reply.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '503' });
    await target.faults.setOutage(null);
    expect((await scim(target, 'GET', '/Users')).status).toBe(200);
  });

  it('refuses connections during a refuse outage and listens again on the same port after it', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    expect((await scim(target, 'GET', `/Users/${ada.id}`)).status).toBe(200);
    await target.faults.setOutage('refuse');
    expect(await connectionFailure(scim(target, 'GET', `/Users/${ada.id}`))).toBe('ECONNREFUSED');
    await target.faults.setOutage(null);
    const reply = await scim(target, 'GET', `/Users/${ada.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(ada.id);
  });

  it('drops connections that are mid-request when a refuse outage starts', async () => {
    const target = await startTarget();
    target.faults.setLatency({ ms: 2000 });
    const pending = connectionFailure(scim(target, 'GET', '/Users'));
    await vi.waitFor(() => expect(target.stats().inFlight).toBe(1), { timeout: 5000, interval: 5 });
    await target.faults.setOutage('refuse');
    expect(await pending).not.toBe('answered');
    await target.faults.reset();
    expect((await scim(target, 'GET', '/Users')).status).toBe(200);
  });

  it('ends an outage by itself after forMs', async () => {
    const target = await startTarget({ controlPort: 0 });
    const started = performance.now();
    await target.faults.setOutage({ mode: 'refuse', forMs: 300 });
    expect(await connectionFailure(scim(target, 'GET', '/Users'))).toBe('ECONNREFUSED');
    await vi.waitFor(
      async () => {
        const health = await fetch(`${target.controlUrl}/health`);
        expect(await health.json()).toMatchObject({ scimListening: true });
      },
      { timeout: 5000, interval: 20 },
    );
    // Not to the millisecond: a timer counts from the event loop's cached time, which may lag.
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(target.faults.current()).toEqual({});
    expect((await scim(target, 'GET', '/Users')).status).toBe(200);
  });

  it('switches PATCH off: 501 and ServiceProviderConfig patch.supported false', async () => {
    const target = await startTarget();
    const ada = target.insertUser({ userName: 'ada@example.com' });
    const deactivate = patchOp({ op: 'replace', path: 'active', value: false });
    target.faults.setPatchSupported(false);
    const refused = await scim(target, 'PATCH', `/Users/${ada.id}`, { body: deactivate });
    expect(refused.status).toBe(501);
    expect(refused.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '501' });
    expect(target.getUser(ada.id)?.active).toBe(true);
    expect((await scim(target, 'GET', '/ServiceProviderConfig')).body.patch).toEqual({ supported: false });
    target.faults.setPatchSupported(true);
    expect((await scim(target, 'PATCH', `/Users/${ada.id}`, { body: deactivate })).status).toBe(200);
    expect((await scim(target, 'GET', '/ServiceProviderConfig')).body.patch).toEqual({ supported: true });
  });

  it('applies writes whose response is lost and answers them 502; reads are unaffected', async () => {
    const target = await startTarget();
    target.faults.setLostResponseFraction(1);
    const created = await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') });
    expect(created.status).toBe(502);
    expect(created.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '502' });
    const ada = target.findUserByUserName('ada@example.com');
    expect(ada).toBeDefined();
    expect((await scim(target, 'GET', `/Users/${ada?.id ?? ''}`)).status).toBe(200);
    expect((await scim(target, 'DELETE', `/Users/${ada?.id ?? ''}`)).status).toBe(502);
    expect(target.users()).toEqual([]);
    expect(target.stats().requests.filter((request) => request.fault === 'lost-response')).toHaveLength(2);
    target.faults.setLostResponseFraction(0);
    expect((await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') })).status).toBe(201);
  });

  it('clears every fault with reset()', async () => {
    const target = await startTarget();
    target.faults.setLatency({ ms: 10 });
    target.faults.setRateLimit({ rps: 1 });
    target.faults.setErrorRate({ fraction: 1, status: 500 });
    target.faults.setPatchSupported(false);
    target.faults.setLostResponseFraction(0.5);
    await target.faults.setOutage('503');
    expect(Object.keys(target.faults.current()).sort()).toEqual(
      ['errorRate', 'latency', 'lostResponseFraction', 'outage', 'patchUnsupported', 'rateLimit'].sort(),
    );
    await target.faults.reset();
    expect(target.faults.current()).toEqual({});
    expect(await statuses(target, 3)).toEqual([200, 200, 200]);
  });
});

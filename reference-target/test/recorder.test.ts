import { describe, expect, it, vi } from 'vitest';
import { normaliseRoute } from '../src/recorder.js';
import { createRequestLogger } from '../src/request-log.js';
import { newUser, patchOp, scim, startTarget, TOKEN } from './scim-http.js';

// Real reference target over real HTTP; nothing is faked.

describe('request recorder', () => {
  it('records every SCIM request with method, normalised route, status, start and duration', async () => {
    const target = await startTarget();
    const before = Date.now();
    const created = await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') });
    const id = String(created.body.id);
    await scim(target, 'GET', `/Users/${id}`);
    await scim(target, 'PATCH', `/Users/${id}`, {
      body: patchOp({ op: 'replace', path: 'active', value: false }),
    });
    await scim(target, 'GET', '/Groups?count=1');
    await scim(target, 'GET', '/Groups/nope');
    await scim(target, 'DELETE', `/Users/${id}`);
    await scim(target, 'GET', '/ServiceProviderConfig', { token: 'wrong' });

    const stats = target.stats();
    expect(stats.requests.map(({ method, route, status }) => `${method} ${route} ${status}`)).toEqual([
      'POST /Users 201',
      'GET /Users/:id 200',
      'PATCH /Users/:id 200',
      'GET /Groups 200',
      'GET /Groups/:id 404',
      'DELETE /Users/:id 204',
      'GET /ServiceProviderConfig 401',
    ]);
    for (const request of stats.requests) {
      expect(request.startedAt).toBeGreaterThanOrEqual(before);
      expect(request.startedAt).toBeLessThanOrEqual(Date.now());
      expect(request.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(stats.total).toBe(7);
    expect(stats.byMethod).toEqual({ POST: 1, GET: 4, PATCH: 1, DELETE: 1 });
    expect(stats.byRoute).toMatchObject({ 'GET /Users/:id': 1, 'PATCH /Users/:id': 1, 'GET /Groups/:id': 1 });
    expect(stats.byStatus).toEqual({ '201': 1, '200': 3, '404': 1, '204': 1, '401': 1 });
  });

  it('does not record state access nor the control API', async () => {
    const target = await startTarget();
    target.insertUser({ userName: 'ada@example.com' });
    target.users();
    await fetch(`${target.controlUrl}/state`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(target.stats().total).toBe(0);
  });

  it('measures the most requests in flight at once', async () => {
    const target = await startTarget();
    target.faults.setLatency({ ms: 200 });
    await Promise.all(Array.from({ length: 6 }, () => scim(target, 'GET', '/Users')));
    expect(target.stats().maxConcurrency).toBe(6);
    expect(target.stats().inFlight).toBe(0);
    target.resetStats();
    await scim(target, 'GET', '/Users');
    expect(target.stats().maxConcurrency).toBe(1);
  });

  it('resets counts and requests with resetStats, and caps the returned list on request', async () => {
    const target = await startTarget();
    for (let index = 0; index < 5; index += 1) await scim(target, 'GET', `/Users?startIndex=${index + 1}`);
    expect(target.stats({ limit: 2 }).requests).toHaveLength(2);
    expect(target.stats({ limit: 0 }).requests).toEqual([]);
    expect(target.stats({ limit: 0 }).total).toBe(5);
    target.resetStats();
    expect(target.stats()).toMatchObject({ total: 0, byMethod: {}, byRoute: {}, byStatus: {}, requests: [] });
  });

  it('keeps counting exactly beyond maxRecordedRequests', async () => {
    const target = await startTarget({ maxRecordedRequests: 2 });
    for (let index = 0; index < 4; index += 1) await scim(target, 'GET', '/Users');
    expect(target.stats()).toMatchObject({ total: 4, droppedRequests: 2 });
    expect(target.stats().requests).toHaveLength(2);
  });

  it('writes one JSON line per SCIM request to the logger, without headers or bodies', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) };
    const target = await startTarget({ logger: createRequestLogger(sink) });
    await scim(target, 'POST', '/Users', { body: newUser('ada@example.com') });
    await scim(target, 'GET', '/Users/nope', { token: 'wrong-token' });
    await vi.waitFor(() => expect(lines).toHaveLength(2), { timeout: 5000, interval: 5 });
    expect(lines).toEqual([
      expect.objectContaining({
        method: 'POST',
        route: '/Users',
        status: 201,
        msg: 'reference target request',
      }),
      expect.objectContaining({ method: 'GET', route: '/Users/:id', status: 401 }),
    ]);
    const text = JSON.stringify(lines);
    for (const secret of [TOKEN, 'wrong-token', 'ada@example.com']) expect(text).not.toContain(secret);
  });

  it.each([
    ['/Users', '/Users'],
    ['/users/', '/Users'],
    ['/Users/abc-123', '/Users/:id'],
    ['/Groups/g', '/Groups/:id'],
    ['/ServiceProviderConfig', '/ServiceProviderConfig'],
    ['/Schemas/urn:ietf:params:scim:schemas:core:2.0:User', '/Schemas/:id'],
    ['/Users/a/b', '/(unknown)'],
    ['/Devices', '/(unknown)'],
    ['/', '/'],
  ])('normalises %s to %s', (path, route) => {
    expect(normaliseRoute(path)).toBe(route);
  });
});

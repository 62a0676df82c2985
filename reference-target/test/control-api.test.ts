import { describe, expect, it } from 'vitest';
import type { ReferenceTarget } from '../src/index.js';
import { scim, startTarget, TOKEN } from './scim-http.js';

// Real reference target over real HTTP; the control API is driven as another process would.

interface ControlReply {
  status: number;
  body: unknown;
}

async function control(
  target: ReferenceTarget,
  method: string,
  path: string,
  body?: unknown,
  token: string = TOKEN,
): Promise<ControlReply> {
  const response = await fetch(`${target.controlUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('control API (/__control)', () => {
  it('lives under the target URL and needs the token, except for health', async () => {
    const target = await startTarget();
    expect(target.controlUrl).toBe(`${target.url}/__control`);
    expect(await control(target, 'GET', '/stats', undefined, 'wrong')).toMatchObject({
      status: 401,
      body: { error: { code: 'unauthorized' } },
    });
    const health = await fetch(`${target.controlUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, scimListening: true });
  });

  it('reports and resets stats', async () => {
    const target = await startTarget();
    await scim(target, 'GET', '/Users');
    expect(await control(target, 'GET', '/stats')).toMatchObject({
      status: 200,
      body: {
        total: 1,
        byRoute: { 'GET /Users': 1 },
        requests: [{ method: 'GET', route: '/Users', status: 200 }],
      },
    });
    expect((await control(target, 'GET', '/stats?requests=0')).body).toMatchObject({
      total: 1,
      requests: [],
    });
    expect((await control(target, 'POST', '/stats/reset')).status).toBe(204);
    expect(target.stats().total).toBe(0);
  });

  it('sets faults with PUT /faults, and clears them all with {}', async () => {
    const target = await startTarget();
    const set = await control(target, 'PUT', '/faults', {
      outage: '503',
      patchUnsupported: true,
      errorRate: { fraction: 0.25, status: 502 },
    });
    expect(set).toMatchObject({ status: 200, body: { outage: { mode: '503' }, patchUnsupported: true } });
    expect((await scim(target, 'GET', '/Users')).status).toBe(503);
    expect((await control(target, 'PUT', '/faults', {})).body).toEqual({});
    expect((await scim(target, 'GET', '/Users')).status).toBe(200);
  });

  it('refuses invalid fault settings, naming the problem', async () => {
    const target = await startTarget();
    const reply = await control(target, 'PUT', '/faults', {
      errorRate: { fraction: 2, status: 418 },
      surprise: 1,
    });
    expect(reply.status).toBe(400);
    const message = (reply.body as { error: { message: string } }).error.message;
    expect(message).toContain('errorRate.fraction');
    expect(message).toContain('errorRate.status');
    expect(target.faults.current()).toEqual({});
  });

  it('reseeds the fault generator from PUT /faults', async () => {
    const target = await startTarget();
    const run = async (): Promise<number[]> => {
      await control(target, 'PUT', '/faults', { seed: 7, errorRate: { fraction: 0.5, status: 500 } });
      const result: number[] = [];
      for (let index = 0; index < 20; index += 1) result.push((await scim(target, 'GET', '/Users')).status);
      return result;
    };
    expect(await run()).toEqual(await run());
  });

  it('survives a refuse outage through forMs, and on a separate controlPort', async () => {
    const target = await startTarget({ controlPort: 0 });
    expect(target.controlUrl).not.toContain(`:${target.port}/`);
    await control(target, 'PUT', '/faults', { outage: { mode: 'refuse' } });
    const health = await fetch(`${target.controlUrl}/health`);
    expect(await health.json()).toEqual({ ok: true, scimListening: false });
    await control(target, 'PUT', '/faults', {});
    expect((await scim(target, 'GET', '/Users')).status).toBe(200);
  });

  it('seeds users and groups in bulk; string members are user externalIds, objects are user ids', async () => {
    const target = await startTarget();
    const reply = await control(target, 'POST', '/seed', {
      users: [
        { userName: 'ada@example.com', externalId: 'u-1' },
        { id: 'fixed-id', userName: 'bob@example.com', externalId: 'u-2', active: false },
      ],
      groups: [{ displayName: 'Engineering', externalId: 'g-1', members: ['u-1', { value: 'fixed-id' }] }],
    });
    expect(reply).toEqual({ status: 200, body: { users: 2, groups: 1 } });
    const ada = target.findUserByUserName('ada@example.com');
    expect(target.getUser('fixed-id')?.active).toBe(false);
    expect(target.groups()[0]?.members).toEqual([
      { value: ada?.id, display: 'ada@example.com' },
      { value: 'fixed-id', display: 'bob@example.com' },
    ]);
    expect(await control(target, 'GET', '/state')).toEqual({ status: 200, body: { users: 2, groups: 1 } });
    expect(target.stats().total).toBe(0);
  });

  it('names the item a seed stopped at', async () => {
    const target = await startTarget();
    const reply = await control(target, 'POST', '/seed', {
      users: [{ userName: 'ada@example.com' }, { userName: 'ADA@example.com' }],
    });
    expect(reply.status).toBe(409);
    expect((reply.body as { error: { message: string } }).error.message).toMatch(/^users\[1\]: userName/);
    const unknownMember = await control(target, 'POST', '/seed', {
      groups: [{ displayName: 'G', members: ['nobody'] }],
    });
    expect(unknownMember.status).toBe(400);
    expect((unknownMember.body as { error: { message: string } }).error.message).toContain('groups[0]');
  });

  it('clears the state', async () => {
    const target = await startTarget();
    target.insertUser({ userName: 'ada@example.com' });
    expect((await control(target, 'POST', '/clear')).status).toBe(204);
    expect(target.users()).toEqual([]);
  });

  it('rotates the SCIM token with PUT /token while the control token stays', async () => {
    const target = await startTarget();
    expect((await control(target, 'PUT', '/token', { token: 'rotated' })).status).toBe(204);
    expect((await scim(target, 'GET', '/Users')).status).toBe(401);
    expect((await scim(target, 'GET', '/Users', { token: 'rotated' })).status).toBe(200);
    expect((await control(target, 'GET', '/state')).status).toBe(200);
  });

  it('is never faulted', async () => {
    const target = await startTarget();
    await target.faults.setOutage('503');
    target.faults.setRateLimit({ rps: 1 });
    for (let index = 0; index < 3; index += 1)
      expect((await control(target, 'GET', '/state')).status).toBe(200);
  });
});

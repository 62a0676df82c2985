import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';

// The Okta emulation itself, over real HTTP, against what Okta's public API reference documents
// (Users, Groups, System Log, rate limits, Event Hooks): the bridge's Okta tests are only as good
// as it. No part of the bridge is used.

describe('the Okta emulation', () => {
  let okta: OktaApiServer;

  beforeEach(async () => {
    okta = await startOktaApi();
  });
  afterEach(async () => {
    await okta.close();
  });

  const get = async (path: string, token = okta.token) => {
    const response = await fetch(new URL(path, okta.url), { headers: { authorization: `SSWS ${token}` } });
    const links = Object.fromEntries(
      [...(response.headers.get('link') ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)].map((m) => [m[2], m[1]]),
    );
    const body = (await response.json()) as Record<string, unknown>[] & Record<string, unknown>;
    return { status: response.status, headers: response.headers, links, body };
  };
  const users = (count: number, status = 'ACTIVE') =>
    Array.from({ length: count }, (_, n) => {
      const id = `00u${status.slice(0, 3).toLowerCase()}${String(n).padStart(14, '0')}`;
      okta.setUser({ id, status, profile: { login: `${status}${n}@corp.example` } });
      return id;
    });

  it('refuses a missing or wrong API token with 401 E0000011', async () => {
    const refused = await get('/api/v1/users', 'not-the-token');
    expect(refused).toMatchObject({ status: 401, body: { errorCode: 'E0000011' } });
  });

  it('lists users that are not DEPROVISIONED, 200 a page at most, with self and next links', async () => {
    const active = users(201);
    users(2, 'DEPROVISIONED');
    const first = await get('/api/v1/users?limit=500');
    expect(first.body).toHaveLength(200);
    expect(first.links.self).toBe(`${okta.url}/api/v1/users?limit=500`);
    const second = await get(first.links.next as string);
    expect(second.body.map((u) => u.id)).toEqual([active.at(-1)]);
    expect(second.links.next).toBeUndefined();
    const gone = await get(`/api/v1/users?filter=${encodeURIComponent('status eq "DEPROVISIONED"')}`);
    expect(gone.body).toHaveLength(2);
  });

  it('lists groups by filter and search, and a group’s members page by page', async () => {
    okta.setGroup({ id: '00gokta', name: 'Engineering' });
    okta.setGroup({ id: '00gapp', type: 'APP_GROUP', name: 'Engineering AD' });
    const filtered = await get(`/api/v1/groups?filter=${encodeURIComponent('type eq "OKTA_GROUP"')}`);
    expect(filtered.body.map((g) => g.id)).toEqual(['00gokta']);
    const searched = await get(
      `/api/v1/groups?search=${encodeURIComponent('profile.name sw "engineering a"')}`,
    );
    expect(searched.body.map((g) => g.id)).toEqual(['00gapp']);
    expect((await get('/api/v1/groups?filter=type%20eqq%20%22X%22')).status).toBe(400);
    for (const id of users(3)) okta.addMember('00gokta', id);
    const page = await get('/api/v1/groups/00gokta/users?limit=2');
    expect(page.body).toHaveLength(2);
    expect((await get(page.links.next as string)).body).toHaveLength(1);
    expect(await get('/api/v1/groups/00gnone')).toMatchObject({
      status: 404,
      body: { errorCode: 'E0000007' },
    });
  });

  it('answers System Log polling requests with a next link always, continuing after the last event', async () => {
    const filter = encodeURIComponent(
      'eventType eq "user.lifecycle.create" or eventType eq "user.lifecycle.suspend"',
    );
    const since = new Date().toISOString();
    const empty = await get(`/api/v1/logs?since=${since}&sortOrder=ASCENDING&filter=${filter}`);
    expect(empty.body).toEqual([]);
    expect(empty.links.self).toBeDefined();
    expect(new URL(empty.links.next as string).searchParams.get('after')).toBeTruthy();

    const ada = okta.org.createUser({ login: 'ada@corp.example' }); // create + activate
    okta.org.suspendUser(ada.id);
    await expect.poll(async () => (await get(empty.links.next as string)).body.length).toBe(2);
    const page = await get(empty.links.next as string);
    expect(page.body.map((e) => e.eventType)).toEqual(['user.lifecycle.create', 'user.lifecycle.suspend']);
    expect(page.body[0]).toMatchObject({
      uuid: expect.any(String),
      published: expect.any(String),
      outcome: { result: 'SUCCESS' },
      target: [{ id: ada.id, type: 'User', alternateId: 'ada@corp.example' }],
    });
    const after = await get(page.links.next as string);
    expect(after.body).toEqual([]);
    expect(after.links.next).toBeDefined();
    expect((await get('/api/v1/logs')).body).toHaveLength(3); // limit 100 by default, every type
  });

  it('refuses a System Log cursor past retention, since over 180 days, and since with after (400 E0000053)', async () => {
    const polled = await get('/api/v1/logs?sortOrder=ASCENDING');
    okta.expireLog();
    const expired = await get(polled.links.next as string);
    expect(expired).toMatchObject({ status: 400, body: { errorCode: 'E0000053' } });
    const old = new Date(Date.now() - 181 * 24 * 3600 * 1000).toISOString();
    expect(await get(`/api/v1/logs?since=${old}`)).toMatchObject({
      status: 400,
      body: {
        errorCode: 'E0000053',
        errorSummary: 'Invalid parameter: The since parameter is over 180 days prior to the current day.',
      },
    });
    expect((await get(`/api/v1/logs?since=${new Date().toISOString()}&after=x`)).status).toBe(400);
    expect((await get('/api/v1/logs?since=yesterday')).body.errorCode).toBe('E0000001');
  });

  it('counts requests per endpoint bucket, and answers 429 E0000047 to a spent one', async () => {
    const ok = await get('/api/v1/users');
    expect(ok.headers.get('x-rate-limit-limit')).toBe('600');
    expect(Number(ok.headers.get('x-rate-limit-remaining'))).toBe(599);
    okta.setRateLimit('logs', 0, 30);
    const limited = await get('/api/v1/logs');
    expect(limited).toMatchObject({ status: 429, body: { errorCode: 'E0000047' } });
    expect(Number(limited.headers.get('x-rate-limit-reset'))).toBeGreaterThan(Date.now() / 1000 + 28);
    expect((await get('/api/v1/users')).status).toBe(200);
  });

  it('answers scripted server errors to the requests they match, after those they skip', async () => {
    users(2);
    okta.failNext(2, { status: 502, pathPrefix: '/api/v1/users?', skip: 1 });
    expect((await get('/api/v1/groups')).status).toBe(200);
    expect((await get('/api/v1/users?limit=1')).status).toBe(200);
    const failed = await get('/api/v1/users?limit=1');
    expect(failed).toMatchObject({ status: 502, body: { errorCode: 'E0000009' } });
    expect(failed.headers.get('x-rate-limit-remaining')).toBeNull();
    expect((await get('/api/v1/users/00uact00000000000000')).status).toBe(200);
    expect((await get('/api/v1/users?limit=1')).status).toBe(502);
    expect((await get('/api/v1/users?limit=1')).status).toBe(200);
    expect(okta.requests().map((r) => r.status)).toEqual([200, 200, 502, 200, 502, 200]);
  });

  describe('Event Hook delivery', () => {
    let hook: Server;
    let answers: number[];
    const received: { authorization?: string; events: { uuid: string }[] }[] = [];

    beforeEach(async () => {
      received.length = 0;
      hook = createServer((req: IncomingMessage, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          const parsed = JSON.parse(body) as { eventType: string; data: { events: { uuid: string }[] } };
          expect(parsed.eventType).toBe('com.okta.event_hook');
          received.push({ authorization: req.headers.authorization, events: parsed.data.events });
          res.writeHead(answers.shift() ?? 200).end();
        });
      });
      await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
      okta.setHook({ url, authorization: 'hook-secret-value', retryDelayMs: 1 });
    });
    afterEach(async () => {
      await new Promise<void>((resolve) => hook.close(() => resolve()));
    });

    it('POSTs data.events with the Authorization value, retries a 5xx once, never a 4xx', async () => {
      answers = [500, 200];
      const user = okta.org.createUser({ login: 'x@corp.example' }, { activate: false });
      await okta.hooksSettled();
      answers = [];
      const [suspended] = okta.org.suspendUser(user.id);
      await okta.hooksSettled();
      answers = [503, 503];
      okta.org.updateProfile(user.id, { firstName: 'X' });
      await okta.hooksSettled();
      answers = [400];
      okta.org.createGroup('Sales');
      await okta.hooksSettled();
      expect(okta.deliveries().map((d) => [d.tries, d.delivered])).toEqual([
        [[500, 200], true],
        [[200], true],
        [[503, 503], false],
        [[400], false],
      ]);
      expect(received.map((r) => r.authorization)).toEqual(received.map(() => 'hook-secret-value'));
      expect(received[2]?.events.map((e) => e.uuid)).toEqual([suspended?.uuid]);
    });
  });
});

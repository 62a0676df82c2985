import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GoogleWorkspace, plainCalls, type ApiBody } from '../support/google-workspace.js';

// The Google Workspace emulation's Reports API, faults and quota, over real HTTP, against what
// Google's documents say: audit records under Google's event names, visible after a lag; the
// throttling and outage answers with Google's bodies; the per-user quota. No part of the bridge.

const DAY = 24 * 3600 * 1000;

describe('the Google Workspace emulation: audit logs, faults and quota', () => {
  let google: GoogleWorkspace;
  let calls: ReturnType<typeof plainCalls>;

  beforeEach(async () => {
    google = await GoogleWorkspace.start({ domain: 'corp.example' });
    calls = plainCalls(google);
  });
  afterEach(async () => {
    await google.close();
  });

  const signIn = (claims?: Record<string, unknown>) => calls.signIn(claims);
  const get = (path: string, token?: string) => calls.get(path, token);
  const reason = (body: ApiBody) => body.error?.errors[0]?.reason;
  const users = (query = '') => `/admin/directory/v1/users?customer=my_customer${query}`;
  const activities = (app: string, query = '') =>
    `/admin/reports/v1/activity/users/all/applications/${app}?${query}`;

  it('logs changes under Google’s event names, visible after a lag, late and out of order, by log', async () => {
    const token = await signIn();
    const ada = google.users.create({ primaryEmail: 'ada@corp.example' }, { visibleAfterMs: 0 });
    google.users.suspend(ada.id, { visibleAfterMs: 120_000 });
    google.users.rename(ada.id, 'ada.king@corp.example', { visibleAfterMs: 30_000 });
    const team = google.groups.create({ email: 'team@corp.example' }, { visibleAfterMs: 0 });
    const manager = google.users.create({ primaryEmail: 'lead@corp.example' }, { visibleAfterMs: 0 });
    google.groups.addMember(team.id, { email: manager.primaryEmail, role: 'MANAGER' }, { visibleAfterMs: 0 });
    google.groups.addMember(
      team.id,
      { email: 'ada.king@corp.example' },
      { by: 'lead@corp.example', visibleAfterMs: 0 },
    );
    const names = async (app: string, query = '') =>
      (
        ((await get(activities(app, query), token)).body.items as
          { events: { name: string }[] }[] | undefined) ?? []
      ).map((a) => a.events[0]?.name);
    // Records of the same millisecond come in any order, as Google's do.
    expect((await names('admin')).sort()).toEqual([
      'ADD_GROUP_MEMBER',
      'CREATE_GROUP',
      'CREATE_USER',
      'CREATE_USER',
    ]);
    google.clock.advance(31_000);
    expect(await names('admin')).toContain('RENAME_USER');
    expect(await names('admin')).not.toContain('SUSPEND_USER');
    google.clock.advance(90_000);
    expect(await names('admin', 'eventName=SUSPEND_USER')).toEqual(['SUSPEND_USER']);
    const rename = (await get(activities('admin', 'eventName=RENAME_USER'), token)).body.items as Record<
      string,
      unknown
    >[];
    expect(rename[0]).toMatchObject({
      id: {
        applicationName: 'admin',
        customerId: google.customerId,
        uniqueQualifier: expect.any(String),
        time: expect.any(String),
      },
      actor: { email: google.adminEmail, callerType: 'USER' },
      events: [
        {
          type: 'USER_SETTINGS',
          name: 'RENAME_USER',
          parameters: [
            { name: 'USER_EMAIL', value: 'ada@corp.example' },
            { name: 'NEW_VALUE', value: 'ada.king@corp.example' },
          ],
        },
      ],
    });
    expect((await get(activities('groups_enterprise'), token)).body.items).toMatchObject([
      {
        actor: { email: 'lead@corp.example' },
        events: [
          {
            name: 'add_member',
            parameters: expect.arrayContaining([
              { name: 'group_id', value: 'team@corp.example' },
              { name: 'member_id', value: 'ada.king@corp.example' },
            ]),
          },
        ],
      },
    ]);
    // Events name addresses as they were: the rename is filed under the old one.
    expect((await names('admin', 'filters=USER_EMAIL==ada@corp.example')).sort()).toEqual([
      'CREATE_USER',
      'RENAME_USER',
      'SUSPEND_USER',
    ]);
    google.log.dropNext = 1;
    google.users.unsuspend(ada.id, { visibleAfterMs: 0 });
    expect(await names('admin', 'eventName=UNSUSPEND_USER')).toEqual([]);
    expect(google.activities('admin').map((a) => (a.events as { name: string }[])[0]?.name)).toContain(
      'UNSUSPEND_USER',
    );
  });

  it('refuses a time range Google refuses, bounds maxResults, and pages the log', async () => {
    const token = await signIn();
    const now = google.clock.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const message = (
      await get(activities('admin', `startTime=${at(now)}&endTime=${at(now - 60_000)}`), token)
    ).body.error?.message;
    expect(message).toMatch(/^Invalid request: Start time and end time should be within last 180 days/);
    expect((await get(activities('admin', `startTime=${at(now + 3_600_000)}`), token)).status).toBe(400);
    expect((await get(activities('admin', `startTime=${at(now - 181 * DAY)}`), token)).status).toBe(400);
    expect((await get(activities('admin', 'startTime=yesterday'), token)).status).toBe(400);
    expect((await get(activities('admin', 'maxResults=1001'), token)).status).toBe(400);
    expect((await get(activities('admin'), token)).body).not.toHaveProperty('items');
    for (let i = 0; i < 3; i++)
      google.users.create({ primaryEmail: `n${i}@corp.example` }, { visibleAfterMs: 0 });
    const first = await get(activities('admin', 'maxResults=2'), token);
    expect(first.body.items).toHaveLength(2);
    const second = await get(
      activities('admin', `maxResults=2&pageToken=${first.body.nextPageToken as string}`),
      token,
    );
    expect(second.body.items).toHaveLength(1);
    expect(second.body).not.toHaveProperty('nextPageToken');
  });

  it('fails on demand with Google’s bodies: scripted, never clearing, at a seeded rate, and 200s that lie', async () => {
    const token = await signIn();
    for (let i = 0; i < 4; i++) google.seed.user({ primaryEmail: `f${i}@corp.example` });
    google.fault({ kind: 'userRateLimitExceeded', method: 'directory.users.list' });
    google.fault({ kind: 'rateLimitExceeded', path: 'users' });
    google.fault({ kind: 'quotaExceeded', method: 'directory.users.list' });
    expect((await get(users(), token)).body.error).toEqual({
      code: 403,
      message: 'User Rate Limit Exceeded',
      errors: [
        { message: 'User Rate Limit Exceeded', domain: 'usageLimits', reason: 'userRateLimitExceeded' },
      ],
    });
    expect((await get(users(), token)).status).toBe(429);
    expect(reason((await get(users(), token)).body)).toBe('quotaExceeded');
    expect((await get(users(), token)).status).toBe(200);
    google.fault({ kind: 'missingListKey', method: 'directory.users.list' });
    const lying = await get(users(), token);
    expect(lying.status).toBe(200);
    expect(lying.body).not.toHaveProperty('users');
    google.fault({ kind: 'truncatedWalk', method: 'directory.users.list' });
    const cut = await get(users('&maxResults=2'), token);
    expect(cut.body.users).toHaveLength(2);
    expect(cut.body).not.toHaveProperty('nextPageToken');
    google.fault({ kind: 'backendError', method: 'directory.users.list', times: Infinity });
    for (let i = 0; i < 5; i++)
      expect((await get(users(), token)).body.error).toMatchObject({
        code: 503,
        errors: [{ reason: 'backendError' }],
      });
    google.faults.clear();
    google.faultRate({ kind: 'userRateLimitExceeded', rate: 0.2, seed: 7 });
    const statuses = [];
    for (let i = 0; i < 50; i++) statuses.push((await get(users(), token)).status);
    const refused = statuses.filter((s) => s === 403).length;
    expect(refused).toBeGreaterThan(3);
    expect(refused).toBeLessThan(20);
    expect(statuses.filter((s) => s !== 403).every((s) => s === 200)).toBe(true);
  });

  it('counts requests per minute per (project, user), refuses over the budget, and reports what it saw', async () => {
    google.quota.perMinute = 5;
    const token = await signIn();
    google.clock.freeze();
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await get(users(), token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 403, 403]);
    expect(google.observed()).toMatchObject({ total: 7, refused: 2, peakPerMinute: 7 });
    google.clock.advance(60_000);
    expect((await get(users(), token)).status).toBe(200);
    expect(google.requests().filter((r) => r.api === 'directory.users.list')).toHaveLength(8);
    expect(google.requests().at(-1)).toMatchObject({
      method: 'GET',
      status: 200,
      subject: google.adminEmail,
    });
  });
});

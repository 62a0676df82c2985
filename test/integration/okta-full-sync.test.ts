import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startTarget } from '../support/engine.js';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';
import { seedUsers, startOktaBridge, type OktaBridge } from './okta-fixture.js';

// Real: the bridge (main.ts wiring: admin API, Redis, BullMQ sync and reconcile workers), the
// reference target, and the Okta emulation's management API over HTTP, paging 3 items at a time.
// The System Log poller is off (OKTA_LOG_POLL_SECONDS=0) and no hooks are delivered: what Okta
// changes reaches the bridge only through full syncs of the okta input.

describe('full syncs of the okta input', () => {
  let target: ReferenceTarget;
  let okta: OktaApiServer;
  let bridge: OktaBridge;

  beforeEach(async () => {
    target = await startTarget();
    okta = await startOktaApi({ pageSize: 3 });
    bridge = await startOktaBridge(target, okta, { hooks: false, env: { OKTA_LOG_POLL_SECONDS: '0' } });
  });
  afterEach(async () => {
    await bridge.close();
    await okta.close();
    await target.close();
  });

  const run = async (body: Record<string, unknown> = { input: 'okta' }) => {
    const view = await bridge.settled(await bridge.sync(body));
    await bridge.engine.drain();
    return view;
  };
  const user = (login: string) => target.findUserByUserName(login);
  const activeUsers = () => target.users().filter((u) => u.active !== false).length;

  it("reads Okta's users, OKTA_GROUP groups and members, paged, mapped as the hooks map them", async () => {
    const ids = seedUsers(okta);
    okta.setUser({
      id: '00ususpended000000001',
      status: 'SUSPENDED',
      profile: { login: 'sus@corp.example' },
    });
    okta.setUser({
      id: '00ugone00000000000001',
      status: 'DEPROVISIONED',
      profile: { login: 'gone@corp.example' },
    });
    okta.setUser({ id: '00ustaged000000000001', status: 'STAGED', profile: { login: 'new@corp.example' } });
    okta.setGroup({ id: '00gengineering0000001', name: 'Engineering' });
    okta.setGroup({ id: '00gappgroup0000000001', type: 'APP_GROUP', name: 'AD Users' });
    okta.setGroup({ id: '00geveryone0000000001', type: 'BUILT_IN', name: 'Everyone' });
    for (const id of [...ids.slice(0, 5), '00ugone00000000000001'])
      okta.addMember('00gengineering0000001', id);

    expect(await run()).toMatchObject({ state: 'completed', trigger: 'admin' });
    expect(target.users()).toHaveLength(12);
    expect(user('user0@corp.example')).toMatchObject({
      externalId: ids[0],
      active: true,
      name: { givenName: 'User', familyName: 'N0' },
      emails: [{ value: 'user0@corp.example', primary: true }],
    });
    expect(user('sus@corp.example')).toMatchObject({ active: false });
    expect(user('new@corp.example')).toMatchObject({ active: false });
    expect(user('gone@corp.example')).toBeUndefined();
    expect(target.groups().map((g) => g.displayName)).toEqual(['Engineering']);
    const members = target.findGroupByDisplayName('Engineering')?.members.map((m) => m.value) ?? [];
    expect(members.sort()).toEqual(
      ids
        .slice(0, 5)
        .map((id) => target.users().find((u) => u.externalId === id)?.id)
        .sort(),
    );

    const paths = okta.requests().map((r) => r.path);
    expect(paths.filter((p) => p.startsWith('/api/v1/users?')).length).toBe(4); // 12 listed, 3 a page
    expect(paths).toContain('/api/v1/groups?filter=type%20eq%20%22OKTA_GROUP%22&limit=200');
    expect(paths.filter((p) => p.startsWith('/api/v1/groups/00gengineering0000001/users'))).toHaveLength(2);
    expect(okta.requests().every((r) => r.status === 200)).toBe(true);
  });

  it('deactivates a user Okta deleted while its events were lost', async () => {
    const ids = seedUsers(okta);
    okta.setGroup({ id: '00gengineering0000001', name: 'Engineering' });
    for (const id of ids.slice(0, 3)) okta.addMember('00gengineering0000001', id);
    expect((await run()).state).toBe('completed');
    expect(activeUsers()).toBe(10);

    okta.org.deleteUser(ids[1] as string); // its events reach no one: no hook, no poll
    const view = await run();
    expect(view).toMatchObject({ state: 'completed', trigger: 'admin' });
    expect(user('user1@corp.example')).toMatchObject({ active: false });
    expect(activeUsers()).toBe(9);
    const eng = target.findGroupByDisplayName('Engineering');
    expect(eng?.members).toHaveLength(2);
  });

  it('holds an Okta listing that shrank by 60%, deprovisioning nothing', async () => {
    const ids = seedUsers(okta);
    expect((await run()).state).toBe('completed');
    for (const id of ids.slice(0, 6)) okta.org.deleteUser(id);
    const held = await run();
    expect(held.state).toBe('awaiting-approval');
    expect(held.plan?.holdReasons).toContain('source-shrink');
    expect(activeUsers()).toBe(10);
  });

  it('a 502 in the middle of an Okta list read is retried and the full read completes', async () => {
    seedUsers(okta);
    // The second page of users (its `after` cursor from the first page's next link) fails once.
    okta.failNext(1, { status: 502, pathPrefix: '/api/v1/users?', skip: 1 });
    expect((await run()).state).toBe('completed');
    expect(activeUsers()).toBe(10);
    const lists = okta.requests().filter((r) => r.path.startsWith('/api/v1/users?'));
    expect(lists.map((r) => r.status)).toEqual([200, 502, 200, 200, 200]);
    expect(lists[2]?.path).toBe(lists[1]?.path);
  });

  it("waits out Okta's 429 on its lists", async () => {
    seedUsers(okta);
    okta.setRateLimit('users.list', 0, 1);
    expect((await run()).state).toBe('completed');
    expect(activeUsers()).toBe(10);
    const lists = okta.requests().filter((r) => r.path.startsWith('/api/v1/users?'));
    expect(lists.map((r) => r.status)).toEqual([429, 200, 200, 200, 200]);
    expect((lists[1]?.at ?? 0) - (lists[0]?.at ?? 0)).toBeGreaterThanOrEqual(500);
  });
});

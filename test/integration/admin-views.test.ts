import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  auth,
  BAD_USER,
  settledSync,
  snapshotOf,
  startAdminFixture,
  startSync,
  type AdminFixture,
} from './admin-fixture.js';

// Real: the bridge's admin API over HTTP (its event stream over a real socket), Redis, BullMQ
// workers, the reference target (its faults: latency, an outage). What the dashboard's views read.
interface StreamEvent {
  name: string;
  data: Record<string, unknown>;
  at: number;
}

/** Reads a server-sent event stream to its end, as the dashboard does: fetch with the token. */
async function readEvents(
  url: string,
  token = ADMIN_TOKEN,
): Promise<{ status: number; events: StreamEvent[] }> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) return { status: response.status, events: [] };
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: StreamEvent[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (name && data)
        events.push({ name, data: JSON.parse(data) as Record<string, unknown>, at: Date.now() });
    }
  }
  return { status: response.status, events };
}

describe('admin API for the dashboard views', () => {
  let fixture: AdminFixture;
  let firstSync: string;
  const url = (path: string) => `${fixture.engine.bridge.http.url}${path}`;
  const get = (path: string) => fixture.http().get(path).set(auth);

  beforeAll(async () => {
    fixture = await startAdminFixture({ TARGET_CONCURRENCY: '2' });
    firstSync = await startSync(fixture, { snapshot: snapshotOf(12) });
    expect((await settledSync(fixture, firstSync)).state).toBe('completed');
    await fixture.engine.drain();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("pages a sync's changes by action, each named beside its id", async () => {
    const users = (await get(`/admin/sync/${firstSync}/changes?action=create&limit=5`).expect(200)).body;
    expect(users).toMatchObject({
      action: 'create',
      planned: true,
      total: 14,
      recorded: 14,
      offset: 0,
      limit: 5,
    });
    expect(users.totals).toEqual({
      create: 14,
      update: 0,
      adopt: 0,
      deprovision: 0,
      ownedElsewhere: 0,
      linked: 0,
      unmatchedInSource: 0,
      unmatchedOnPlatform: 0,
      ambiguous: 0,
    });
    expect(users.items.map((c: { id: string; userName: string }) => [c.id, c.userName])).toEqual([
      ['u0', 'user0@example.com'],
      ['u1', 'user1@example.com'],
      ['u2', 'user2@example.com'],
      ['u3', 'user3@example.com'],
      ['u4', 'user4@example.com'],
    ]);
    const last = (await get(`/admin/sync/${firstSync}/changes?action=create&offset=10&limit=5`).expect(200))
      .body;
    expect(
      last.items.map((c: Record<string, unknown>) => [c.kind, c.id, c.userName ?? c.displayName]),
    ).toEqual([
      ['user', 'u10', 'user10@example.com'],
      ['user', 'u11', 'user11@example.com'],
      ['group', 'g-eng', 'Engineering'],
      ['group', 'g-ops', 'Operations'],
    ]);
    const none = (await get(`/admin/sync/${firstSync}/changes?action=deprovision`).expect(200)).body;
    expect(none).toMatchObject({ total: 0, recorded: 0, items: [] });
  });

  it('names what a sync deprovisions and updates, from the platform once the desired state is gone', async () => {
    const target = fixture.target.findUserByUserName('user3@example.com');
    fixture.target.updateUser(target!.id, { name: { givenName: 'Drifted', familyName: 'Away' } });
    // u11 leaves the directory: one of twelve, under the deprovisioning limit.
    const jobId = await startSync(fixture, { snapshot: snapshotOf(11) });
    expect((await settledSync(fixture, jobId)).state).toBe('completed');
    const page = (await get(`/admin/sync/${jobId}/changes`).expect(200)).body;
    const named = page.items.map((c: Record<string, unknown>) => [
      c.action,
      c.id,
      c.userName ?? c.displayName,
    ]);
    expect(named).toEqual(
      expect.arrayContaining([
        ['update', 'u3', 'user3@example.com'],
        ['deprovision', 'u11', 'user11@example.com'],
      ]),
    );
    expect((await get('/admin/identities/users/u11').expect(200)).body.desired).toBeNull();
  });

  it('counts the changes the record does not keep, and pages to the last one it keeps', async () => {
    // A dry run of 160 users: 120 or more creates, of which the record keeps a sample.
    const jobId = await startSync(fixture, { snapshot: snapshotOf(160), dryRun: true });
    expect((await settledSync(fixture, jobId)).state).toBe('completed');
    const first = (await get(`/admin/sync/${jobId}/changes?action=create&limit=100`).expect(200)).body;
    expect(first.total).toBeGreaterThanOrEqual(120);
    expect(first.totals.create).toBe(first.total);
    expect(first.recorded).toBeLessThanOrEqual(100);
    expect(first.recorded).toBeLessThan(first.total);
    const last = (
      await get(`/admin/sync/${jobId}/changes?action=create&offset=${first.recorded - 1}`).expect(200)
    ).body;
    expect(last.items).toHaveLength(1);
    const beyond = (
      await get(`/admin/sync/${jobId}/changes?action=create&offset=${first.recorded}`).expect(200)
    ).body;
    expect(beyond.items).toEqual([]);
    // A dry run writes no desired state: a user it would create is named only if the plan names it.
    const item = first.items[0] as { id: string; userName: string | null };
    expect([null, `user${item.id.slice(1)}@example.com`]).toContain(item.userName);
  });

  it('refuses a bad query or an unknown sync, and changes nothing', async () => {
    const bad = await get(`/admin/sync/${firstSync}/changes?action=delete&limit=0&extra=1`).expect(400);
    expect(bad.body.error.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^action: /), expect.stringMatching(/^limit: /)]),
    );
    await get('/admin/sync/sync-nothing-0/changes').expect(404);
    await get('/admin/sync/runs/changes').expect(404);
    await get('/admin/sync/sync-nothing-0/events').expect(404);
    await fixture.http().get(`/admin/sync/${firstSync}/events`).expect(401);
    await fixture.http().get(`/admin/sync/${firstSync}/changes`).expect(401);
  });

  it("streams a running sync's progress through every phase, and ends when the sync ends", async () => {
    fixture.target.faults.setLatency({ ms: 100 });
    try {
      const jobId = await startSync(fixture, { snapshot: snapshotOf(40) });
      const { status, events } = await readEvents(url(`/admin/sync/${jobId}/events`));
      expect(status).toBe(200);
      const last = events.at(-1);
      expect(last?.name).toBe('end');
      expect(last?.data).toMatchObject({ jobId, state: 'completed', progress: { phase: 'done' } });
      const phases = [...new Set(events.map((e) => (e.data.progress as { phase: string }).phase))];
      const order = ['queued', 'reading-source', 'listing-target', 'planning', 'applying', 'done'];
      expect(phases).toEqual([...phases].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
      expect(phases).toEqual(expect.arrayContaining(['applying', 'done']));
      // The 28 creates and 2 group updates, two at a time at 100 ms each (1.5 s), are seen as they happen.
      const applying = events.filter((e) => (e.data.progress as { phase: string }).phase === 'applying');
      const counts = new Set(applying.map((e) => (e.data.progress as { done: number }).done));
      expect(counts.size).toBeGreaterThanOrEqual(4);
    } finally {
      fixture.target.faults.setLatency(null);
    }
  });

  it('ends the stream of a sync that already ended at once', async () => {
    const { events } = await readEvents(url(`/admin/sync/${firstSync}/events`));
    expect(events.map((e) => [e.name, e.data.state])).toEqual([['end', 'completed']]);
  });

  it('shows a user beside its platform copy, the differences marked', async () => {
    const same = (await get('/admin/identities/users/user1@example.com/platform').expect(200)).body;
    expect(same).toMatchObject({
      kind: 'user',
      id: 'u1',
      platform: 'found',
      inDesiredState: true,
      differences: [],
    });
    expect(same.attributes.find((a: { attribute: string }) => a.attribute === 'userName')).toEqual({
      attribute: 'userName',
      desired: 'user1@example.com',
      platform: 'user1@example.com',
      differs: false,
    });
    const onPlatform = fixture.target.findUserByUserName('user1@example.com')!;
    fixture.target.updateUser(onPlatform.id, { name: { givenName: 'Someone', familyName: 'Else' } });
    const drifted = (await get('/admin/identities/users/u1/platform').expect(200)).body;
    expect(drifted.differences).toEqual(['name']);
    expect(drifted.attributes.find((a: { attribute: string }) => a.attribute === 'name')).toEqual({
      attribute: 'name',
      desired: { givenName: 'Given1', familyName: 'Family1' },
      platform: { givenName: 'Someone', familyName: 'Else' },
      differs: true,
    });
    expect(drifted.resource).toMatchObject({ id: onPlatform.id, userName: 'user1@example.com' });
  });

  it("shows a group's members on both sides by userName, the missing and the extra ones first", async () => {
    const trace = (await get('/admin/identities/groups/g-eng').expect(200)).body;
    const size = (trace.desired.members as string[]).length;
    expect(trace.names).toMatchObject({ u0: 'user0@example.com', u10: 'user10@example.com' });
    expect(Object.keys(trace.names)).toHaveLength(size);
    const group = fixture.target.findGroupByDisplayName('Engineering')!;
    const outsider = fixture.target.insertUser({ userName: 'outsider@example.com' });
    const user0 = fixture.target.findUserByUserName('user0@example.com')!;
    const kept = (group.members ?? []).filter((m) => m.value !== user0.id);
    fixture.target.updateGroup(group.id, { members: [...kept, { value: outsider.id }] });
    const copy = (await get('/admin/identities/groups/Engineering/platform').expect(200)).body;
    expect(copy.differences).toEqual(['members']);
    expect(copy.members).toMatchObject({
      desired: size,
      platform: size,
      missing: 1,
      extra: 1,
      rowsOmitted: 0,
    });
    expect(copy.members.rows.slice(0, 2)).toEqual([
      // Unknown to the bridge: named as the platform's group lists it (members[].display).
      { id: null, targetId: outsider.id, userName: 'outsider@example.com', desired: false, platform: true },
      { id: 'u0', targetId: user0.id, userName: 'user0@example.com', desired: true, platform: false },
    ]);
    expect(copy.members.rows[2]).toMatchObject({
      userName: 'user10@example.com',
      desired: true,
      platform: true,
    });
    const user = (await get('/admin/identities/users/u0').expect(200)).body;
    expect(user.groups).toEqual(['g-eng']);
    expect(user.names).toEqual({ 'g-eng': 'Engineering' });
  });

  it('says when the bridge has no platform id, or the platform lost the resource', async () => {
    await fixture.engine.bridge.store.api.upsertUser(BAD_USER);
    await fixture.engine.drain();
    const unlinked = (await get('/admin/identities/users/bad/platform').expect(200)).body;
    expect(unlinked).toMatchObject({
      platform: 'not-linked',
      targetId: null,
      resource: null,
      attributes: [],
    });
    const user5 = fixture.target.findUserByUserName('user5@example.com')!;
    fixture.target.deleteUser(user5.id);
    const gone = (await get('/admin/identities/users/u5/platform').expect(200)).body;
    expect(gone).toMatchObject({ platform: 'not-found', targetId: user5.id, resource: null });
    await get('/admin/identities/users/nobody/platform').expect(404);
    await get('/admin/identities/people/u1/platform').expect(400);
  });

  it('answers 502 with a clear message while the platform is down, and changes nothing', async () => {
    const before = (await get('/admin/identities/users/u2').expect(200)).body;
    await fixture.target.faults.setOutage('refuse');
    try {
      const down = await get('/admin/identities/users/u2/platform').expect(502);
      expect(down.body.error.code).toBe('target_network_error');
      expect(down.body.error.message).toMatch(
        /^The platform could not be read: GET \/Users\/:id failed: ECONNREFUSED/,
      );
      expect(JSON.stringify(down.body)).not.toContain(ADMIN_TOKEN);
    } finally {
      await fixture.target.faults.setOutage(null);
    }
    const after = (await get('/admin/identities/users/u2').expect(200)).body;
    expect(after.desired).toEqual(before.desired);
    expect(after.history.length).toBe(before.history.length);
    expect((await get('/admin/identities/users/u2/platform').expect(200)).body.platform).toBe('found');
  });
});

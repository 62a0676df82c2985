import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startTarget } from '../support/engine.js';
import { logSink } from '../support/log-sink.js';
import { startOktaApi, type OktaApiServer } from '../support/okta-api.js';
import { uniquePrefix } from '../support/redis.js';
import { seedUsers, startOktaBridge, type OktaBridge } from './okta-fixture.js';

// Real: the bridge (main.ts wiring: HTTP, Redis, BullMQ — the okta-events queue, the input reads'
// schedulers, the reconcile workers), the reference target, and the Okta emulation over HTTP (its
// management API, its System Log, and Event Hooks it delivers to the bridge as Okta does: one try
// and one retry, then never again). OKTA_LOG_POLL_SECONDS is 1; tests wait on conditions.

describe('the System Log gap-filler', () => {
  let target: ReferenceTarget;
  let okta: OktaApiServer;
  let bridge: OktaBridge | undefined;

  beforeEach(async () => {
    target = await startTarget();
    okta = await startOktaApi();
  });
  afterEach(async () => {
    await bridge?.close();
    bridge = undefined;
    await okta.close();
    await target.close();
  });

  const until = (check: () => Promise<boolean> | boolean, timeout = 20_000) =>
    expect.poll(check, { timeout, interval: 50 }).toBe(true);
  const user = (login: string) => target.findUserByUserName(login);
  const members = (name: string) =>
    (target.findGroupByDisplayName(name)?.members ?? []).map((m) => m.value).sort();

  it('applies from the System Log the hooks missed while the bridge was down, each once', async () => {
    const keyPrefix = uniquePrefix();
    bridge = await startOktaBridge(target, okta, { keyPrefix });
    await until(async () => (await bridge?.cursor()) !== undefined);
    const { org } = okta;
    const profile = (login: string, firstName: string, lastName: string) => ({
      login,
      email: login,
      firstName,
      lastName,
    });
    const ada = org.createUser(profile('ada@corp.example', 'Ada', 'Lovelace'));
    const bob = org.createUser(profile('bob@corp.example', 'Bob', 'Bemer'));
    const cy = org.createUser(profile('cy@corp.example', 'Cy', 'Young'));
    const dee = org.createUser(profile('dee@corp.example', 'Dee', 'Dee'));
    const eng = org.createGroup('Engineering');
    org.addToGroup(eng.id, ada.id);
    org.addToGroup(eng.id, bob.id);
    await okta.hooksSettled();
    await bridge.engine.drain();
    expect(okta.deliveries().every((d) => d.delivered)).toBe(true);
    expect(members('Engineering')).toEqual(
      [user('ada@corp.example')?.id, user('bob@corp.example')?.id].sort(),
    );

    // Down: every delivery fails twice and is lost. (What the polls counted so far stays counted: a
    // hook slower than the log on a busy machine is, truthfully, seen first by a poll.)
    const missedBefore = (await bridge.freshness()).missed;
    await bridge.stop();
    const before = okta.deliveries().length;
    org.deactivateUser(ada.id);
    org.suspendUser(bob.id);
    org.updateProfile(cy.id, { firstName: 'Cyrus', lastName: 'Young-Smith' });
    const eve = org.createUser(profile('eve@corp.example', 'Eve', 'Evans'));
    org.addToGroup(eng.id, dee.id);
    org.removeFromGroup(eng.id, bob.id);
    await okta.hooksSettled();
    const lost = okta.deliveries().slice(before);
    expect(lost.map((d) => [d.delivered, d.tries.length])).toEqual(lost.map(() => [false, 2]));
    const lostUuids = lost.flatMap((d) => d.uuids);
    expect(lostUuids).toHaveLength(7); // Eve's creation is two events: create, then activate

    // Back, on the same Redis: the poll continues from its cursor.
    bridge = await startOktaBridge(target, okta, { keyPrefix });
    await until(
      () => user('eve@corp.example')?.active === true && user('cy@corp.example')?.name?.givenName === 'Cyrus',
    );
    await until(() => members('Engineering').length === 2 && user('ada@corp.example')?.active === false);
    await bridge.engine.drain();
    expect(user('ada@corp.example')).toMatchObject({ active: false });
    expect(user('bob@corp.example')).toMatchObject({ active: false });
    expect(user('cy@corp.example')).toMatchObject({
      name: { givenName: 'Cyrus', familyName: 'Young-Smith' },
    });
    expect(user('eve@corp.example')).toMatchObject({ active: true, externalId: expect.any(String) });
    expect(members('Engineering')).toEqual(
      [user('ada@corp.example')?.id, user('dee@corp.example')?.id].sort(),
    );
    expect(await bridge.missed()).toBe(7);
    expect(await bridge.freshness()).toMatchObject({
      missed: missedBefore + 7,
      failures: 0,
      readKind: 'delta',
    });

    // A change whose hook reaches the bridge is seen by the next polls too, and not counted.
    const polledAt = (await bridge.freshness()).readAt ?? 0;
    org.updateProfile(eve.id, { lastName: 'Evans-Hook' });
    await okta.hooksSettled();
    await until(async () => ((await bridge?.freshness())?.readAt ?? 0) > polledAt + 1500);
    await bridge.engine.drain();
    expect(user('eve@corp.example')?.name?.familyName).toBe('Evans-Hook');
    expect(await bridge.missed()).toBe(7);

    // Each missed event applied once, by the change read: remembered as applied, never queued as a hook.
    const { redis, keys } = bridge.engine.bridge.store;
    for (const uuid of lostUuids) expect(await redis.exists(keys.seenEvent('okta', uuid))).toBe(1);
    const jobs = await bridge.engine.bridge.store.oktaEvents.queue.getJobs(['completed', 'failed']);
    expect(jobs.filter((job) => lostUuids.includes(job.data.uuid))).toEqual([]);
  });

  it("records the input's freshness from the hooks too, leaving its polls' failures as they are", async () => {
    bridge = await startOktaBridge(target, okta, { env: { OKTA_LOG_POLL_SECONDS: '0' } });
    await bridge.engine.bridge.store.sync.freshness.readFailed('okta', 'a poll failed');
    okta.org.createUser({ login: 'fresh@corp.example' });
    await okta.hooksSettled();
    const newest = Math.max(...okta.logEvents().map((e) => Date.parse(e.published)));
    expect(await bridge.freshness()).toMatchObject({
      readKind: 'push',
      changeAt: newest,
      failures: 1,
      lastError: 'a poll failed',
      missed: 0,
    });
    // The bridge's clock (Redis's) and the emulation's may differ by a millisecond or so.
    expect((await bridge.freshness()).readAt).toBeGreaterThanOrEqual(newest - 50);
  });

  it('writes nothing while the log is unchanged', async () => {
    bridge = await startOktaBridge(target, okta);
    await until(async () => (await bridge?.cursor()) !== undefined);
    okta.org.createUser({ login: 'quiet@corp.example', firstName: 'Quiet', lastName: 'One' });
    await okta.hooksSettled();
    await bridge.engine.drain();
    const identity = bridge.engine.bridge.store.keys.identity(
      'user',
      okta.org.users.keys().next().value as string,
    );
    const version = await bridge.engine.bridge.store.redis.hget(identity, 'v');
    const jobs = await bridge.engine.bridge.store.oktaEvents.queue.getJobCountByTypes('completed', 'failed');
    const polledAt = (await bridge.freshness()).readAt ?? 0;
    target.resetStats();

    await until(async () => ((await bridge?.freshness())?.readAt ?? 0) > polledAt + 2500);
    // Once the event is older than the hooks' grace, the reads go on from Okta's own cursor.
    const logReads = () => okta.requests().filter((r) => r.path.startsWith('/api/v1/logs'));
    await until(() => /[?&]after=/.test(logReads().at(-1)?.path ?? ''));
    expect(target.stats().total).toBe(0);
    expect(await bridge.engine.bridge.store.redis.hget(identity, 'v')).toBe(version);
    expect(await bridge.engine.bridge.store.oktaEvents.queue.getJobCountByTypes('completed', 'failed')).toBe(
      jobs,
    );
    expect(await bridge.missed()).toBe(0);
    const polls = okta.requests().filter((r) => r.path.startsWith('/api/v1/logs'));
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(polls.every((r) => r.status === 200)).toBe(true);
    // Each read continues from the last (an event younger than the hooks' grace is read again from its time).
    expect(polls.slice(1).every((r) => /[?&](after|since)=/.test(r.path))).toBe(true);
    expect(polls.at(-1)?.path).toMatch(/[?&]after=/);
  });

  it('reads Okta in full, and the log from then on, when Okta refuses the cursor', async () => {
    const ids = seedUsers(okta);
    const sink = logSink([], 'info');
    bridge = await startOktaBridge(target, okta, { hooks: false, logger: sink.logger });
    expect((await bridge.settled(await bridge.sync({ input: 'okta' }))).state).toBe('completed');
    await bridge.engine.drain();
    // A cursor Okta issued (its `after`), not the start time a full read begins from.
    await until(async () => 'after' in ((await bridge?.cursor()) ?? {}));
    const first = await bridge.cursor();
    const before = new Set((await bridge.syncs()).map((s) => s.jobId));

    // Gone before any read could reach it: the log's retention passed, the cursor with it.
    okta.org.deactivateUser(ids[3] as string);
    okta.expireLog();
    const refusal = async () =>
      (await bridge?.syncs())?.find((s) => s.trigger === 'delta' && !before.has(s.jobId));
    await until(async () => (await refusal()) !== undefined);
    const full = (await refusal()) as { jobId: string };
    expect((await bridge.settled(full.jobId)).state).toBe('completed');
    await bridge.engine.drain();
    expect(user('user3@corp.example')).toMatchObject({ active: false });
    await until(async () => (await bridge?.cursor()) !== undefined);
    expect(await bridge.cursor()).not.toEqual(first);

    const readAt = (await bridge.freshness()).readAt ?? 0;
    await until(async () => ((await bridge?.freshness())?.readAt ?? 0) > readAt + 1500);
    const refusals = sink.lines().filter((l) => String(l.msg).startsWith('delta read not possible'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ level: 40, syncId: full.jobId, started: true });
    expect(String(refusals[0]?.reason)).toMatch(/Okta refused the System Log cursor/);
    const refused = okta.requests().filter((r) => r.path.startsWith('/api/v1/logs') && r.status === 400);
    expect(refused).toHaveLength(1);
    expect((await bridge.syncs()).filter((s) => !before.has(s.jobId))).toHaveLength(1);
  });

  it("reads Okta in full at once when Okta refuses the cursor, while the directory's sync is held", async () => {
    const ids = seedUsers(okta);
    const sink = logSink([], 'info');
    bridge = await startOktaBridge(target, okta, {
      hooks: false,
      logger: sink.logger,
      env: { DEPROVISION_LIMIT: '1' },
    });
    expect((await bridge.settled(await bridge.sync({ input: 'okta' }))).state).toBe('completed');
    await bridge.engine.drain();
    await until(async () => 'after' in ((await bridge?.cursor()) ?? {}));
    const before = new Set((await bridge.syncs()).map((s) => s.jobId));
    // The directory's snapshot empties itself: three removals over the limit of one, held.
    const staff = ['s1', 's2', 's3'].map((id) => ({ id, userName: `${id}@staff.example`, active: true }));
    expect((await bridge.settled(await bridge.sync({ snapshot: { users: staff, groups: [] } }))).state).toBe(
      'completed',
    );
    const held = await bridge.sync({ snapshot: { users: [], groups: [] }, allowEmpty: true });
    expect((await bridge.settled(held)).state).toBe('awaiting-approval');

    // Each input has its own sync slot: the directory's held sync does not delay okta's full read.
    okta.org.deactivateUser(ids[3] as string);
    okta.expireLog();
    const refusal = async () =>
      (await bridge?.syncs())?.find((s) => s.trigger === 'delta' && !before.has(s.jobId));
    await until(async () => (await refusal()) !== undefined);
    const full = (await refusal()) as { jobId: string };
    expect((await bridge.settled(full.jobId)).state).toBe('completed');
    await bridge.engine.drain();
    expect(user('user3@corp.example')).toMatchObject({ active: false });
    expect((await bridge.syncs()).find((s) => s.jobId === held)).toMatchObject({
      state: 'awaiting-approval',
    });
  });

  it("waits out the System Log's 429 and a bucket at X-Rate-Limit-Remaining: 0", async () => {
    bridge = await startOktaBridge(target, okta);
    await until(async () => (await bridge?.cursor()) !== undefined);
    const logs = () => okta.requests().filter((r) => r.path.startsWith('/api/v1/logs'));

    // One request left in the bucket until a reset 2 s away: the next poll spends it (the answer
    // says 0 remaining), and the one after waits for the reset instead of drawing a 429.
    const start = logs().length;
    const resetAt = Math.ceil((Date.now() + 2000) / 1000) * 1000;
    okta.setRateLimit('logs', 1, 2);
    await until(() => logs().length >= start + 2, 15_000);
    const [spent, afterReset] = logs().slice(start);
    expect(spent?.status).toBe(200);
    expect(afterReset?.status).toBe(200);
    expect(afterReset?.at).toBeGreaterThanOrEqual(resetAt - 5);

    // An exhausted bucket: the poll's request is answered 429, and waited out until the reset — 3 s
    // away, so that a poll late under load still meets it exhausted.
    const next = logs().length;
    okta.setRateLimit('logs', 0, 3);
    await until(
      () =>
        logs()
          .slice(next)
          .some((r) => r.status === 200),
      15_000,
    );
    const statuses = logs()
      .slice(next)
      .map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    const limited = logs()
      .slice(next)
      .find((r) => r.status === 429);
    const recovered = logs()
      .slice(next)
      .find((r) => r.status === 200);
    expect((recovered?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(500);
    expect((await bridge.freshness()).failures).toBe(0);
  });
});

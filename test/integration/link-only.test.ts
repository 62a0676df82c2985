import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSyncResult, type SyncView as CliSyncView } from '../../src/cli/sync-summary-lines.js';
import { newSyncId } from '../../src/queue/job-ids.js';
import {
  ADMIN_TOKEN,
  conflicts,
  directoryUser,
  startInputs,
  trace,
  type Inputs,
  type SyncView,
} from './ownership-fixture.js';

// Real: pushed directory snapshots (JSON and NDJSON) into one bridge (Redis, BullMQ workers, HTTP),
// the admin API over HTTP, the CLI's report and `scim-bridge sync` in a child process, the reference
// target — whose recorded requests, by method, say what the bridge wrote.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `scim-bridge <args>` from the sources in a child process, as a shell runs it. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
}

describe('link-only onboarding', () => {
  let inputs: Inputs;

  afterEach(async () => {
    await inputs?.close();
  });

  const plan = (view: SyncView) => view.plan as Record<string, unknown>;
  const writes = () => {
    const { byMethod } = inputs.target.stats({ limit: 0 });
    return Object.fromEntries(Object.entries(byMethod).filter(([method]) => method !== 'GET'));
  };
  const page = async (jobId: string, action: string) =>
    (await inputs.admin('get', `/admin/sync/${jobId}/changes?action=${action}&limit=100`).expect(200)).body;

  it('links 100 of 120 without a write, then a normal sync creates exactly the other 20', async () => {
    inputs = await startInputs();
    const users = Array.from({ length: 120 }, (_, n) => directoryUser(`u-${n}`, `user${n}@example.com`));
    for (const user of users.slice(0, 100)) {
      inputs.target.insertUser({
        externalId: user.id,
        userName: user.userName,
        name: user.name,
        emails: user.emails,
        active: true,
      });
    }
    inputs.target.resetStats();

    const linked = await inputs.directory({ users, groups: [] }, { linkOnly: true });
    expect(linked).toMatchObject({ state: 'completed', linkOnly: true });
    expect(writes()).toEqual({});
    expect(inputs.target.stats({ limit: 0 }).byMethod.GET).toBeGreaterThan(0);
    expect(linked.summary).toMatchObject({
      linked: 100,
      unmatchedInSource: 20,
      unmatchedOnPlatform: 0,
      ambiguous: 0,
      created: 0,
      deprovisioned: 0,
    });
    expect(plan(linked).linkOnly).toMatchObject({ users: { linked: 100, unmatchedInSource: 20 } });
    expect((await trace(inputs, 'users', 'u-7').expect(200)).body).toMatchObject({
      managed: true,
      targetId: inputs.target.findUserByUserName('user7@example.com')?.id,
    });
    const unmatched = await page(linked.jobId, 'unmatchedInSource');
    expect(unmatched).toMatchObject({ total: 20, recorded: 20 });
    expect(unmatched.items.map((i: { userName: string }) => i.userName)).toEqual(
      users.slice(100).map((u) => u.userName),
    );
    expect(await page(linked.jobId, 'linked')).toMatchObject({ total: 100, recorded: 100 });
    const printed = formatSyncResult(linked as unknown as CliSyncView);
    expect(printed).toContain('(link-only)');
    expect(printed).toMatch(
      /linked +unmatchedInSource +unmatchedOnPlatform +ambiguous\n[─ ]+\nusers +100 +20 +0 +0\ngroups +0 +0 +0 +0\ntotal +100 +20 +0 +0\n/,
    );
    expect(printed).toContain('Next: scim-bridge sync --wait creates the 20 users unmatched in the source.');
    expect(printed).toMatch(/requests by method: GET \d+$/);
    await inputs.engine.drain();
    expect(writes()).toEqual({});

    inputs.target.resetStats();
    const next = await inputs.directory({ users, groups: [] });
    expect(next.state).toBe('completed');
    expect(plan(next)).toMatchObject({ users: { create: 20, update: 0, unchanged: 100, deprovision: 0 } });
    await inputs.engine.drain();
    expect(writes()).toEqual({ POST: 20 });
    expect(inputs.target.stats({ limit: 0 }).byRoute['POST /Users']).toBe(20);
    expect(inputs.target.users()).toHaveLength(120);
  });

  it('counts a link-only run per kind in its summary and report, as its plan does', async () => {
    inputs = await startInputs();
    const users = Array.from({ length: 120 }, (_, n) => directoryUser(`u-${n}`, `user${n}@example.com`));
    for (const user of users.slice(0, 100)) inputs.target.insertUser({ ...user, externalId: user.id });
    const groups = Array.from({ length: 4 }, (_, n) => ({
      id: `g-${n}`,
      displayName: `Team ${n}`,
      members: [],
    }));
    const linked = await inputs.directory({ users, groups }, { linkOnly: true });
    const none = { linked: 0, unmatchedInSource: 0, unmatchedOnPlatform: 0, ambiguous: 0 };
    const perKind = {
      users: { ...none, linked: 100, unmatchedInSource: 20 },
      groups: { ...none, unmatchedInSource: 4 },
    };
    expect(linked.summary).toMatchObject({ linked: 100, unmatchedInSource: 24, linkOnly: perKind });
    expect(plan(linked).linkOnly).toMatchObject(perKind);
    const printed = formatSyncResult(linked as unknown as CliSyncView);
    expect(printed).toMatch(
      /^ +linked +unmatchedInSource +unmatchedOnPlatform +ambiguous\n[─ ]+\nusers +100 +20 +0 +0\ngroups +0 +4 +0 +0\ntotal +100 +24 +0 +0$/m,
    );
    expect(printed).toContain(
      'Next: scim-bridge sync --wait creates the 20 users and 4 groups unmatched in the source.',
    );
  });

  it('scim-bridge sync --snapshot FILE --link-only --wait: the counts, and no write', async () => {
    inputs = await startInputs();
    const users = [directoryUser('u-1', 'one@example.com'), directoryUser('u-2', 'two@example.com')];
    inputs.target.insertUser({ ...users[0]!, externalId: 'u-1' });
    const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-link-only-'));
    try {
      const path = join(dir, 'directory.json');
      writeFileSync(path, JSON.stringify({ users, groups: [] }));
      inputs.target.resetStats();
      const url = inputs.engine.bridge.http.url;
      const run = await runCli(['sync', '--snapshot', path, '--link-only', '--wait', '--url', url], {
        ADMIN_TOKEN,
      });
      expect(run.code, run.out).toBe(0);
      expect(run.out).toMatch(/^Sync sync-\S+: completed \(link-only\)$/m);
      expect(run.out).toContain('Link-only: nothing was written to the platform');
      expect(run.out).toMatch(/^users +1 +1 +0 +0$/m);
      expect(run.out).toMatch(/^total +1 +1 +0 +0$/m);
      expect(run.out).toContain('Next: scim-bridge sync --wait creates the 1 user unmatched in the source.');
      expect(writes()).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('sends ambiguous matches to the inbox, leaves unmatched accounts alone, never deprovisions', async () => {
    inputs = await startInputs({ DEPROVISION_LIMIT: '10' });
    expect(
      (await inputs.directory({ users: [directoryUser('z', 'zed@example.com')], groups: [] })).state,
    ).toBe('completed');
    await inputs.engine.drain();
    const byExternalId = inputs.target.insertUser({ externalId: 'a', userName: 'a-old@example.com' });
    const byName = inputs.target.insertUser({ userName: 'ada@example.com' });
    const bob = inputs.target.insertUser({ userName: 'bob@example.com', active: true });
    const stranger = inputs.target.insertUser({ userName: 'x@example.com', externalId: 'x-ext' });
    const engineering = inputs.target.insertGroup({ displayName: 'Engineering' });
    const snapshot = {
      users: [
        directoryUser('a', 'ada@example.com'),
        directoryUser('b', 'bob@example.com'),
        directoryUser('c', 'cy@example.com'),
      ],
      groups: [{ id: 'g', displayName: 'Engineering', members: ['b'] }],
    };
    inputs.target.resetStats();

    // A dry run of it: what it would link, nothing recorded.
    const dry = await inputs.directory(snapshot, { linkOnly: true, dryRun: true });
    const counts = { linked: 2, unmatchedInSource: 1, unmatchedOnPlatform: 1, ambiguous: 1 };
    expect(plan(dry).linkOnly).toMatchObject(counts);
    expect(await conflicts(inputs)).toEqual([]);
    await trace(inputs, 'users', 'b').expect(404);

    // The run itself, pushed as NDJSON with the options line.
    const ndjson = [
      { options: { linkOnly: true } },
      ...snapshot.users.map((user) => ({ user })),
      ...snapshot.groups.map((group) => ({ group })),
    ];
    const started = await inputs
      .admin('post', '/admin/sync')
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson.map((line) => JSON.stringify(line)).join('\n'))
      .expect(202);
    const view = await inputs.settle(started.body.jobId as string);
    expect(view).toMatchObject({ state: 'completed', linkOnly: true, summary: counts });
    await inputs.engine.drain();
    expect(writes()).toEqual({});
    expect(inputs.target.getUser(inputs.target.findUserByUserName('zed@example.com')?.id ?? '')?.active).toBe(
      true,
    );
    expect((await trace(inputs, 'users', 'a').expect(200)).body.status).toBe('parked');
    expect(await conflicts(inputs)).toMatchObject([
      {
        kind: 'ambiguous',
        claimant: { owner: 'directory:directory', id: 'a' },
        account: {
          candidates: [
            { targetId: byExternalId.id, by: 'externalId' },
            { targetId: byName.id, by: 'userName' },
          ],
        },
      },
    ]);
    expect((await trace(inputs, 'groups', 'g').expect(200)).body).toMatchObject({ targetId: engineering.id });
    const linked = await page(view.jobId, 'linked');
    expect(
      linked.items.map((i: { userName?: string; displayName?: string }) => i.userName ?? i.displayName),
    ).toEqual(['bob@example.com', 'Engineering']);
    expect((await page(view.jobId, 'unmatchedOnPlatform')).items).toEqual([
      {
        kind: 'user',
        id: null,
        action: 'unmatchedOnPlatform',
        targetId: stranger.id,
        userName: 'x@example.com',
      },
    ]);
    expect((await page(view.jobId, 'ambiguous')).items[0]).toMatchObject({
      id: 'a',
      userName: 'ada@example.com',
    });

    // A normal sync then: creates cy, takes zed out (the source no longer lists it), updates what
    // was linked; the ambiguous one stays parked, the stranger untouched.
    const next = await inputs.directory(snapshot);
    expect(plan(next)).toMatchObject({ users: { create: 1, update: 1, deprovision: 1 } });
    // Parked by its own ambiguous conflict: counted on its own, not as held by another input.
    expect(plan(next).ownedElsewhere).toMatchObject({
      users: 0,
      groups: 0,
      refused: { users: 0, groups: 0 },
      ambiguous: { users: 1, groups: 0 },
    });
    expect((await page(next.jobId, 'ownedElsewhere')).items).toEqual([
      {
        kind: 'user',
        id: 'a',
        action: 'ownedElsewhere',
        userName: 'ada@example.com',
        owner: null,
        refused: 'ambiguous',
      },
    ]);
    const printed = formatSyncResult(next as unknown as CliSyncView);
    expect(printed).toContain(
      'Waiting for an admin: 1 identity of the source two platform accounts fit (see scim-bridge conflicts)',
    );
    expect(printed).not.toContain('Held by another input');
    await inputs.engine.drain();
    expect(inputs.target.findUserByUserName('cy@example.com')).toBeDefined();
    expect(inputs.target.findUserByUserName('zed@example.com')?.active).toBe(false);
    expect(inputs.target.getUser(bob.id)?.externalId).toBe('b');
    expect(inputs.target.getGroup(engineering.id)?.members?.map((m) => m.value)).toEqual([bob.id]);
    expect(inputs.target.getUser(stranger.id)).toEqual(stranger);
    expect(inputs.target.getUser(byExternalId.id)).toEqual(byExternalId);
    expect(inputs.target.getUser(byName.id)).toEqual(byName);

    // Asked while another sync holds the directory's slot: refused, never folded into the other one.
    const { records } = inputs.engine.bridge.store.syncs;
    const other = newSyncId(Date.now(), '0000beef');
    expect(
      (await records.start(other, { dryRun: false, trigger: 'admin', slot: 'directory:directory' })).started,
    ).toBe(true);
    const busy = await inputs.admin('post', '/admin/sync').send({ linkOnly: true }).expect(409);
    expect(busy.body.error.message).toContain(other);
    await records.finish(other, 'failed', {});
  });

  it('leaves nothing pending when a sync removes an identity that has no platform account', async () => {
    inputs = await startInputs();
    const [ada, cy] = [directoryUser('a', 'ada@example.com'), directoryUser('c', 'cy@example.com')];
    inputs.target.insertUser({ ...ada, externalId: 'a' });
    const pending = async () =>
      (await inputs.admin('get', '/admin/status').expect(200)).body.pending as number;
    expect((await inputs.directory({ users: [ada, cy], groups: [] }, { linkOnly: true })).state).toBe(
      'completed',
    );
    expect(await pending()).toBe(0);
    // cy was never created on the platform: its removal owes no reconcile run, and none is pending.
    const next = await inputs.directory({ users: [ada], groups: [] });
    expect(next.state).toBe('completed');
    expect(plan(next)).toMatchObject({ users: { create: 0, deprovision: 0 } });
    expect((await trace(inputs, 'users', 'c').expect(200)).body.desired).toBeNull();
    expect(await pending()).toBe(0);
    inputs.target.resetStats();
    await inputs.engine.drain();
    expect(writes()).toEqual({});
  });

  it('is no baseline for SOURCE_SHRINK_LIMIT: a shrunken source after it is still held', async () => {
    inputs = await startInputs({ DEPROVISION_LIMIT: '500' });
    const snapshot = (n: number) => ({
      users: Array.from({ length: n }, (_, i) => directoryUser(`d-${i}`, `d${i}@example.com`)),
      groups: [],
    });
    expect((await inputs.directory(snapshot(10))).state).toBe('completed');
    await inputs.engine.drain();
    expect((await inputs.directory({ users: [], groups: [] }, { linkOnly: true })).state).toBe('completed');
    const next = await inputs.directory(snapshot(5));
    expect(next.state).toBe('awaiting-approval');
    expect(plan(next)).toMatchObject({
      holdReasons: ['source-shrink'],
      source: { users: 5, last: { users: 10 } },
    });
    expect(inputs.target.users().filter((u) => u.active === false)).toEqual([]);
  });
});

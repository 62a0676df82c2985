import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { readListedGroup } from '../../src/platform/platform-resources.js';
import { SyncCleanChecks } from '../../src/store/sync-clean.store.js';
import { SyncListing } from '../../src/store/sync-listing.store.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { uniquePrefix } from '../support/redis.js';
import {
  completedSync,
  NONE as none,
  person,
  platformWrites,
  writeDirectoryFile,
  type Counts,
} from './file-sync-fixture.js';

// Real: a bridge (main.ts wiring: admin API, Redis, BullMQ workers, the file directory source on a
// real temporary file) and the reference target over HTTP. What is checked: once a sync found a
// group matching its account, later syncs count it unchanged without planning it — until its
// account changes on the platform, its members change in the file, or a member's account is no
// longer the one the platform's group lists: each is caught by the next sync.
const ADMIN = 'admin-token-sync-groups-clean';
const auth = { Authorization: `Bearer ${ADMIN}` };
const OWNER = 'directory:directory';
const USERS = [
  person('ada', 'Ada', 'Lovelace'),
  person('grace', 'Grace', 'Hopper'),
  person('alan', 'Alan', 'Turing'),
];
const directory = (engMembers: string[]) =>
  JSON.stringify({
    users: USERS,
    groups: [
      { id: 'eng', displayName: 'Engineering', members: engMembers },
      { id: 'ops', displayName: 'Operations', members: ['alan'] },
    ],
  });

interface SyncRecord {
  state: string;
  plan: { users: Counts; groups: Counts; changes: { kind: string; id: string; action: string }[] };
  summary: { unchangedClean: number };
  sourceUnchanged?: true;
}

describe('a full sync over groups it found matching before', () => {
  let dir: string;
  let file: string;
  let target: ReferenceTarget;
  let engine: EngineFixture;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-groups-clean-'));
    file = join(dir, 'directory.json');
    writeDirectoryFile(file, directory(['ada', 'grace']));
    target = await startTarget();
    engine = await startEngine(target, {
      ADMIN_TOKEN: ADMIN,
      KEY_PREFIX: uniquePrefix(),
      DIRECTORY_SOURCE: 'file',
      DIRECTORY_FILE: file,
    });
  });
  afterAll(async () => {
    await engine?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sync = () => completedSync<SyncRecord>(engine, auth);
  const group = (name: string) => target.findGroupByDisplayName(name)!;
  const userId = (id: string) => target.findUserByUserName(`${id}@example.com`)!.id;
  /** The platform's members of a group, as the source ids of their accounts, sorted. */
  const members = (name: string) => {
    const byTarget = new Map(USERS.map((u) => [userId(u.id), u.id]));
    return (group(name).members ?? []).map((m) => byTarget.get(m.value) ?? m.value).sort();
  };

  it('counts a group found matching unchanged without planning it, and writes nothing', async () => {
    expect((await sync()).plan.groups).toMatchObject({ create: 2 });
    // The next sync compares what the first created and records it as found matching.
    const second = await sync();
    expect(second.plan.groups).toMatchObject(none);
    expect(second.summary.unchangedClean).toBe(0);

    const third = await sync();
    expect(third.sourceUnchanged).toBe(true);
    expect(third.plan.users).toMatchObject(none);
    expect(third.plan.groups).toMatchObject(none);
    // The three users and both groups.
    expect(third.summary.unchangedClean).toBe(5);
    expect(platformWrites(target)).toEqual([]);
  });

  it('puts back a member taken out on the platform only', async () => {
    target.updateGroup(group('Engineering').id, { members: [{ value: userId('grace') }] });

    const record = await sync();
    expect(record.sourceUnchanged).toBe(true);
    expect(record.plan.groups).toMatchObject({ ...none, update: 1 });
    expect(record.plan.changes).toMatchObject([{ kind: 'group', id: 'eng', action: 'update' }]);
    // The users and ops, as recorded.
    expect(record.summary.unchangedClean).toBe(4);
    expect(members('Engineering')).toEqual(['ada', 'grace']);
  });

  it('sets back a group renamed on the platform only', async () => {
    target.updateGroup(group('Operations').id, { displayName: 'Ops (renamed)' });

    const record = await sync();
    expect(record.plan.groups).toMatchObject({ ...none, update: 1 });
    expect(record.plan.changes).toMatchObject([{ kind: 'group', id: 'ops', action: 'update' }]);
    expect(group('Operations').displayName).toBe('Operations');
  });

  it('adds a member added in the file only', async () => {
    writeDirectoryFile(file, directory(['ada', 'grace', 'alan']));

    const record = await sync();
    expect(record.sourceUnchanged).toBeUndefined();
    expect(record.plan.groups).toMatchObject({ ...none, update: 1 });
    expect(record.plan.changes).toMatchObject([{ kind: 'group', id: 'eng', action: 'update' }]);
    expect(members('Engineering')).toEqual(['ada', 'alan', 'grace']);

    // Both groups found matching again: the next sync plans neither.
    expect((await sync()).plan.groups).toMatchObject(none);
    const after = await sync();
    expect(after.plan.groups).toMatchObject(none);
    expect(after.summary.unchangedClean).toBe(5);
  });

  it("is not clean while a member's match in the plan is not the account the group lists", async () => {
    // The store side of a plan from the stored identities: eng's account indexed as listed, then
    // asked once the users are planned. A user the plan matched elsewhere ('' : to be created, or
    // another account) changes the members the group must have; a member outside the run's
    // source (another input's user) is planned as MEMBER_TARGETS resolves it.
    const { redis, keys } = engine.bridge.store;
    const listed = readListedGroup(JSON.parse(JSON.stringify(group('Engineering'))));
    const ask = async (syncId: string, prepare: (matched: string) => Promise<unknown>) => {
      const listing = new SyncListing(redis, keys, syncId, OWNER);
      listing.claimCleanWhenListed();
      await listing.indexPage('group', [listed]);
      const matched = keys.syncWork(syncId, 'matched');
      await prepare(matched);
      const checks = new SyncCleanChecks(redis, keys, listing, OWNER);
      const [clean] = await checks.groups(['eng'], {
        stagedDocs: keys.syncWork(syncId, 'src:g:docs'),
        users: { key: keys.owned('user', OWNER), mode: 'z' },
        matched,
      });
      const claimed = (await listing.resources('group', [listed.id]))[0]?.claimed;
      await redis.del(matched, keys.syncWork(syncId, 'src:g:docs'));
      return { clean, claimed };
    };
    expect(await ask('groups-as-listed', async () => undefined)).toEqual({ clean: true, claimed: true });
    expect(await ask('groups-member-to-create', (m) => redis.hset(m, 'grace', ''))).toEqual({
      clean: false,
      claimed: false,
    });
    expect(await ask('groups-member-moved', (m) => redis.hset(m, 'grace', 'T-elsewhere'))).toEqual({
      clean: false,
      claimed: false,
    });
    // Staged by the run (its source changes the group): planned from what it stages.
    expect(
      await ask('groups-staged', () => redis.hset(keys.syncWork('groups-staged', 'src:g:docs'), 'eng', '{}')),
    ).toEqual({ clean: false, claimed: false });
    // A member that is not the run's source's user.
    const score = await redis.zscore(keys.owned('user', OWNER), 'alan');
    await redis.zrem(keys.owned('user', OWNER), 'alan');
    try {
      expect(await ask('groups-member-elsewhere', async () => undefined)).toEqual({
        clean: false,
        claimed: false,
      });
    } finally {
      await redis.zadd(keys.owned('user', OWNER), score ?? '0', 'alan');
    }
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { uniquePrefix } from '../support/redis.js';
import {
  completedSync,
  NONE as none,
  person as user,
  platformWrites,
  writeDirectoryFile,
  type Counts,
} from './file-sync-fixture.js';

// Real: the bridge (main.ts wiring: admin API, Redis, BullMQ workers, the file directory source on a
// real temporary file, its scope and mapping from a CONFIG_FILE), the reference target over HTTP.
// What is checked: a full sync finds every change wherever it was made — in the file (same size and
// mtime), on the platform behind the bridge's back (an attribute, a membership), in the mapping —
// and touches nothing else; with nothing changed it plans and writes nothing. The steps run in order
// on one bridge and one platform, so that each sync follows an applied one.
const ADMIN = 'admin-token-sync-catches-changes';
const auth = { Authorization: `Bearer ${ADMIN}` };
const IDS = ['ada', 'grace', 'alan'];
const directory = (graceFamilyName: string) =>
  JSON.stringify(
    {
      users: [
        user('ada', 'Ada', 'Lovelace'),
        user('grace', 'Grace', graceFamilyName),
        user('alan', 'Alan', 'Turing'),
      ],
      groups: [{ id: 'eng', displayName: 'Engineering', members: IDS }],
    },
    null,
    2,
  );

interface SyncRecord {
  state: string;
  plan: { users: Counts; groups: Counts; changes: { kind: string; id: string; action: string }[] };
  summary: Record<string, unknown>;
  policyFingerprint: string;
  /** Planned from the desired state: the file unchanged since the last applied read of it. */
  sourceUnchanged?: true;
}

describe('a full sync never skips a changed identity', () => {
  let dir: string;
  let file: string;
  let target: ReferenceTarget;
  let engine: EngineFixture;
  const prefix = uniquePrefix();

  /** A bridge on this test's keys, reading the file with the scope and mapping of `policy`. */
  async function startBridge(policy = ''): Promise<EngineFixture> {
    const config = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(config, `directory:\n  name: directory\n${policy}`);
    return startEngine(target, {
      ADMIN_TOKEN: ADMIN,
      CONFIG_FILE: config,
      KEY_PREFIX: prefix,
      DIRECTORY_SOURCE: 'file',
      DIRECTORY_FILE: file,
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-catches-'));
    file = join(dir, 'directory.json');
    write(directory('Hopper'));
    target = await startTarget();
    engine = await startBridge();
  });
  afterAll(async () => {
    await engine?.close();
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sync = (body: object = {}) => completedSync<SyncRecord>(engine, auth, body);
  let defaultFingerprint = '';
  /** The writes the platform received during the last sync. */
  const writes = () => platformWrites(target);
  const oneWrite = (route: string) => [expect.stringMatching(new RegExp(`^(PATCH|PUT) /${route}/:id$`))];
  const updated = (count: number) => ({ created: 0, updated: count, deprovisioned: 0, failed: 0 });
  const platformUser = (id: string) => target.findUserByUserName(`${id}@example.com`);
  /** Each platform user's name, by source id. */
  const names = () =>
    Object.fromEntries(
      IDS.map((id) => [id, `${platformUser(id)?.name?.givenName} ${platformUser(id)?.name?.familyName}`]),
    );
  const members = () =>
    (target.findGroupByDisplayName('Engineering')?.members ?? []).map((m) => m.display).sort();
  /** The stored objects themselves: the target replaces one only when it is written. */
  const stored = () => [...IDS.map(platformUser), target.findGroupByDisplayName('Engineering')];
  const kept = (before: ReturnType<typeof stored>) => stored().map((resource, i) => resource === before[i]);
  let fileBytes: Buffer;
  const write = (text: string) => {
    writeDirectoryFile(file, text);
    fileBytes = readFileSync(file);
  };
  const fileUnchanged = () => expect(readFileSync(file).equals(fileBytes)).toBe(true);

  it('provisions the directory with a first full sync', async () => {
    const first = await sync();
    defaultFingerprint = first.policyFingerprint;
    expect(first.sourceUnchanged).toBeUndefined();
    expect(first.plan.users).toMatchObject({ ...none, create: 3 });
    expect(first.plan.groups).toMatchObject({ ...none, create: 1 });
    expect(names()).toEqual({ ada: 'Ada Lovelace', grace: 'Grace Hopper', alan: 'Alan Turing' });
    for (const id of IDS)
      expect(platformUser(id)).toMatchObject({
        externalId: id,
        active: true,
        emails: [{ value: `${id}@example.com`, primary: true }],
      });
    expect(members()).toEqual(['ada@example.com', 'alan@example.com', 'grace@example.com']);
  });

  it('plans and writes nothing when nothing changed', async () => {
    const before = stored();
    const second = await sync();
    expect(second.sourceUnchanged).toBe(true);
    expect(second.plan.users).toMatchObject(none);
    expect(second.plan.groups).toMatchObject(none);
    expect(second.plan.changes).toEqual([]);
    expect(second.summary).toMatchObject(updated(0));
    expect(writes()).toEqual([]);
    expect(kept(before)).toEqual([true, true, true, true]);
  });

  it('updates exactly the user changed in the file, even at the same size and mtime', async () => {
    const { size, mtimeMs } = statSync(file);
    write(directory('Hooper'));
    expect([statSync(file).size, statSync(file).mtimeMs]).toEqual([size, mtimeMs]);
    const before = stored();

    const record = await sync();
    expect(record.sourceUnchanged).toBeUndefined();
    expect(record.plan.users).toMatchObject({ ...none, update: 1 });
    expect(record.plan.groups).toMatchObject(none);
    expect(record.plan.changes).toMatchObject([{ kind: 'user', id: 'grace', action: 'update' }]);
    expect(record.summary).toMatchObject(updated(1));
    expect(names()).toEqual({ ada: 'Ada Lovelace', grace: 'Grace Hooper', alan: 'Alan Turing' });
    expect(writes()).toEqual(oneWrite('Users'));
    expect(kept(before)).toEqual([true, false, true, true]);
  });

  it("sets back a user's attribute changed on the platform, the file byte-identical", async () => {
    const alan = platformUser('alan')!;
    target.updateUser(alan.id, { name: { givenName: 'Drifted', familyName: 'Turing' } });
    expect(names().alan).toBe('Drifted Turing');
    fileUnchanged();
    const before = stored();

    const record = await sync();
    expect(record.sourceUnchanged).toBe(true);
    expect(record.plan.users).toMatchObject({ ...none, update: 1 });
    expect(record.plan.groups).toMatchObject(none);
    expect(record.plan.changes).toMatchObject([{ kind: 'user', id: 'alan', action: 'update' }]);
    expect(record.summary).toMatchObject(updated(1));
    expect(names()).toEqual({ ada: 'Ada Lovelace', grace: 'Grace Hooper', alan: 'Alan Turing' });
    expect(writes()).toEqual(oneWrite('Users'));
    expect(kept(before)).toEqual([true, true, false, true]);
  });

  it('adds back a member removed on the platform, the file byte-identical', async () => {
    const group = target.findGroupByDisplayName('Engineering')!;
    const grace = platformUser('grace')!.id;
    target.updateGroup(group.id, { members: group.members.filter((m) => m.value !== grace) });
    expect(members()).toEqual(['ada@example.com', 'alan@example.com']);
    fileUnchanged();
    const before = stored();

    const record = await sync();
    expect(record.sourceUnchanged).toBe(true);
    expect(record.plan.users).toMatchObject(none);
    expect(record.plan.groups).toMatchObject({ ...none, update: 1 });
    expect(record.plan.changes).toMatchObject([{ kind: 'group', id: 'eng', action: 'update' }]);
    expect(record.summary).toMatchObject(updated(1));
    expect(members()).toEqual(['ada@example.com', 'alan@example.com', 'grace@example.com']);
    expect(writes()).toEqual(oneWrite('Groups'));
    expect(kept(before)).toEqual([true, true, true, false]);
  });

  it('reads the file again once another path wrote its identities', async () => {
    // A snapshot pushed for the directory renames ada; the file, byte-identical, still says Lovelace.
    const pushed = JSON.parse(directory('Hooper')) as { users: ReturnType<typeof user>[] };
    pushed.users[0]!.name.familyName = 'Byron';
    const push = await sync({ snapshot: pushed });
    expect(push.plan.changes).toMatchObject([{ kind: 'user', id: 'ada', action: 'update' }]);
    expect(names().ada).toBe('Ada Byron');
    fileUnchanged();

    const record = await sync();
    expect(record.sourceUnchanged).toBeUndefined();
    expect(record.plan.changes).toMatchObject([{ kind: 'user', id: 'ada', action: 'update' }]);
    expect(names()).toEqual({ ada: 'Ada Lovelace', grace: 'Grace Hooper', alan: 'Alan Turing' });
    expect((await sync()).sourceUnchanged).toBe(true);
  });

  it('applies a changed mapping to the users it affects, the file byte-identical', async () => {
    const unmapped = stored();
    await engine.bridge.close();
    engine = await startBridge(
      `  mapping:\n    users:\n      familyName: 'id == "grace" ? familyName : upper(familyName)'\n`,
    );
    fileUnchanged();

    const record = await sync();
    expect(record.sourceUnchanged).toBeUndefined();
    expect(record.policyFingerprint).not.toBe(defaultFingerprint);
    expect(record.plan.users).toMatchObject({ ...none, update: 2 });
    expect(record.plan.groups).toMatchObject(none);
    expect(record.summary).toMatchObject(updated(2));
    expect(record.plan.changes.map((c) => `${c.kind}:${c.id}:${c.action}`).sort()).toEqual([
      'user:ada:update',
      'user:alan:update',
    ]);
    expect(names()).toEqual({ ada: 'Ada LOVELACE', grace: 'Grace Hooper', alan: 'Alan TURING' });
    expect(kept(unmapped)).toEqual([false, true, false, true]);

    // And under the new mapping, nothing is left to do.
    const again = await sync();
    expect(again.sourceUnchanged).toBe(true);
    expect(again.plan.users).toMatchObject(none);
    expect(writes()).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { packObserved } from '../../src/domain/observed-form.js';
import { readListedUser } from '../../src/platform/platform-resources.js';
import type { ObservedUser } from '../../src/domain/user-diff.js';
import { memberTargets } from '../../src/store/desired-state.bulk.js';
import { cleanDigest, SyncCleanChecks } from '../../src/store/sync-clean.store.js';
import { SyncListing } from '../../src/store/sync-listing.store.js';
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

// Real: two bridges (main.ts wiring: admin API, Redis, BullMQ workers, the file directory source on
// a real temporary file) one after the other on the same reference target over HTTP. The first
// provisions the platform; the second, on fresh Redis keys, meets it all already there. What is
// checked: the second bridge's first sync adopts the accounts that match and records them as found
// matching (so that its next sync need not plan them), but not the one it had to update; a change
// made afterwards — on the platform, or in the file — is still caught by the next sync, while the
// users and groups found as they were recorded are counted without being planned
// (summary.unchangedClean).
const ADMIN = 'admin-token-sync-adopts-clean';
const auth = { Authorization: `Bearer ${ADMIN}` };
const IDS = ['ada', 'grace', 'alan'] as const;
const directory = (graceFamilyName: string, alanFamilyName = 'Turing') =>
  JSON.stringify({
    users: [
      user('ada', 'Ada', 'Lovelace'),
      user('grace', 'Grace', graceFamilyName),
      user('alan', 'Alan', alanFamilyName),
    ],
    groups: [{ id: 'eng', displayName: 'Engineering', members: [...IDS] }],
  });

interface SyncRecord {
  state: string;
  plan: {
    users: Counts;
    groups: Counts;
    changes: { kind: string; id: string; action: string }[];
    linkOnly?: {
      users: Record<'linked' | 'unmatchedInSource' | 'unmatchedOnPlatform' | 'ambiguous', number>;
    };
  };
  /** unchangedClean: the identities counted unchanged without being planned (found clean). */
  summary: { unchangedClean: number };
  sourceUnchanged?: true;
}

describe("a fresh bridge's first sync over a provisioned platform", () => {
  let dir: string;
  let file: string;
  let target: ReferenceTarget;
  let engine: EngineFixture;

  const startBridge = () =>
    startEngine(target, {
      ADMIN_TOKEN: ADMIN,
      KEY_PREFIX: uniquePrefix(),
      DIRECTORY_SOURCE: 'file',
      DIRECTORY_FILE: file,
    });
  const write = (text: string) => writeDirectoryFile(file, text);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-adopts-'));
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
  /**
   * Whether another identity with ada's externalId and userName could match ada's listed account
   * (a candidate no match claimed): not while a claim holds it, again once the claim is given back.
   */
  const usable = async (listing: SyncListing) => {
    const account = platformUser('ada');
    const lookup = { externalId: account.externalId ?? '', name: account.userName.toLowerCase() };
    const candidates = await listing.more('user', lookup);
    return { usableByOthers: candidates.some((c) => c?.resource.id === account.id && !c.claimed) };
  };
  /** Of users, those a plan finds clean in a listing (as SyncRunStore asks it). */
  const cleanUsersOf = (listing: SyncListing, ids: string[], stagedDocs: string) => {
    const { redis, keys } = engine.bridge.store;
    return new SyncCleanChecks(redis, keys, listing, 'directory:directory').users(ids, stagedDocs);
  };
  const platformUser = (id: string) => target.findUserByUserName(`${id}@example.com`)!;
  const name = (id: string) => `${platformUser(id).name?.givenName} ${platformUser(id).name?.familyName}`;
  const writes = () => platformWrites(target);
  /**
   * Whether the bridge recorded the user as found matching its account as it is now: its hash's dg
   * is the digest of its stored desired state and of the account's compact form as a listing
   * reads it — what the next sync's listing computes to find it clean.
   */
  const foundMatching = async (id: string) => {
    const { redis, keys } = engine.bridge.store;
    const [dg, doc] = await Promise.all([
      redis.hget(keys.identity('user', id), 'dg'),
      redis.get(keys.doc('user', id)),
    ]);
    if (dg === null || doc === null) return false;
    const account = packObserved('user', readListedUser(JSON.parse(JSON.stringify(platformUser(id)))));
    return dg === cleanDigest('user', doc, account);
  };

  it('starts from a platform another bridge provisioned', async () => {
    expect((await sync()).plan.users).toMatchObject({ create: 3 });
    expect(await Promise.all(IDS.map(foundMatching))).toEqual([false, false, false]);
    await engine.close();
    engine = await startBridge();
  });

  it('adopts what matches, updates what does not, and records only the matching ones', async () => {
    target.updateUser(platformUser('alan').id, { name: { givenName: 'Drifted', familyName: 'Turing' } });

    const first = await sync();
    expect(first.sourceUnchanged).toBeUndefined();
    expect(first.plan.users).toMatchObject({ ...none, update: 1 });
    expect(first.plan.groups).toMatchObject(none);
    expect(first.plan.changes).toMatchObject([{ kind: 'user', id: 'alan', action: 'update' }]);
    expect(first.summary.unchangedClean).toBe(0);
    expect(name('alan')).toBe('Alan Turing');
    expect(await Promise.all(IDS.map(foundMatching))).toEqual([true, true, false]);
  });

  it('sets back an adopted user changed on the platform since', async () => {
    target.updateUser(platformUser('ada').id, { name: { givenName: 'Drifted', familyName: 'Lovelace' } });

    const record = await sync();
    expect(record.sourceUnchanged).toBe(true);
    expect(record.plan.users).toMatchObject({ ...none, update: 1 });
    expect(record.plan.changes).toMatchObject([{ kind: 'user', id: 'ada', action: 'update' }]);
    // grace, as recorded, and the group eng (adopted and recorded by the first sync); alan had no
    // record yet (updated by the first sync): planned, found matching.
    expect(record.summary.unchangedClean).toBe(1 + 1);
    expect(IDS.map(name)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Alan Turing']);
    expect(writes()).toEqual([expect.stringMatching(/^(PATCH|PUT) \/Users\/:id$/)]);
  });

  it('updates an adopted user changed in the file since', async () => {
    write(directory('Hooper'));

    const record = await sync();
    expect(record.sourceUnchanged).toBeUndefined();
    expect(record.plan.users).toMatchObject({ ...none, update: 1 });
    expect(record.plan.changes).toMatchObject([{ kind: 'user', id: 'grace', action: 'update' }]);
    // ada's account set back as its record has it, and alan's: both counted without being planned,
    // as eng (the file left it as it was).
    expect(record.summary.unchangedClean).toBe(2 + 1);
    expect(IDS.map(name)).toEqual(['Ada Lovelace', 'Grace Hooper', 'Alan Turing']);
  });

  it('records a user changed alike in the file and on the platform once its new state is written', async () => {
    target.updateUser(platformUser('alan').id, { name: { givenName: 'Alan', familyName: 'Mathison' } });
    write(directory('Hooper', 'Mathison'));
    expect(await foundMatching('alan')).toBe(false);

    const record = await sync();
    expect(record.sourceUnchanged).toBeUndefined();
    expect(record.plan.users).toMatchObject(none);
    // ada, and eng.
    expect(record.summary.unchangedClean).toBe(1 + 1);
    expect(writes()).toEqual([]);
    expect(await Promise.all(IDS.map(foundMatching))).toEqual([true, true, true]);
  });

  it('then finds every user as recorded: plans none of them and writes nothing', async () => {
    const record = await sync();
    expect(record.sourceUnchanged).toBe(true);
    expect(record.plan.users).toMatchObject(none);
    expect(record.plan.groups).toMatchObject(none);
    expect(record.summary.unchangedClean).toBe(3 + 1);
    expect(writes()).toEqual([]);
    expect(IDS.map(name)).toEqual(['Ada Lovelace', 'Grace Hooper', 'Alan Mathison']);
  });

  it('has a link-only run over the unchanged file find every user on the account it has', async () => {
    // It plans every user: none of their accounts may be taken as the listing indexes them.
    const record = await sync({ linkOnly: true, dryRun: true });
    expect(record.sourceUnchanged).toBe(true);
    expect(record.plan.linkOnly?.users).toEqual({
      linked: 3,
      unmatchedInSource: 0,
      unmatchedOnPlatform: 0,
      ambiguous: 0,
    });
    expect(record.plan.users).toMatchObject({ ...none, unchanged: 3 });
  });

  it('never finds clean a user whose account a shifting listing showed twice', async () => {
    // The listing's index as a sync writes it, page by page, for users recorded clean just above.
    const { redis, keys } = engine.bridge.store;
    const clean = async (syncId: string, pages: ObservedUser[][]) => {
      const listing = new SyncListing(redis, keys, syncId, 'directory:directory');
      for (const page of pages) await listing.indexPage('user', page);
      return cleanUsersOf(listing, ['ada'], keys.syncWork(syncId, 'src:u:docs'));
    };
    const listed = readListedUser(JSON.parse(JSON.stringify(platformUser('ada'))));
    const changed = { ...listed, name: { givenName: 'Changed', familyName: 'Lovelace' } };
    expect(await clean('listed-once', [[listed]])).toEqual([true]);
    expect(await clean('listed-twice', [[listed], [listed]])).toEqual([false]);
    expect(await clean('changed-then-as-recorded', [[changed], [listed]])).toEqual([false]);
    // One call indexes a whole page: an account twice on it counts once and is not clean either.
    expect(await clean('twice-on-a-page', [[listed, listed]])).toEqual([false]);
    expect(await clean('changed-then-as-recorded-on-a-page', [[changed, listed]])).toEqual([false]);
    const twice = new SyncListing(redis, keys, 'counted-once', 'directory:directory');
    expect(await twice.indexPage('user', [listed, listed])).toEqual({ added: 1, addedManaged: 1 });
  });

  it('never finds clean, in a sync of one input, a user stored before owners existed', async () => {
    // Its groups are compared through the accounts the listing claims (CLEAN_GROUPS): a user it
    // finds clean is one of the input's own.
    const { redis, keys } = engine.bridge.store;
    const listed = readListedUser(JSON.parse(JSON.stringify(platformUser('ada'))));
    const owner = await redis.hget(keys.identity('user', 'ada'), 'o');
    await redis.hdel(keys.identity('user', 'ada'), 'o');
    try {
      const clean = async (syncId: string, scope?: string) => {
        const listing = new SyncListing(redis, keys, syncId, scope);
        await listing.indexPage('user', [listed]);
        const checks = new SyncCleanChecks(redis, keys, listing, scope);
        return checks.users(['ada'], keys.syncWork(syncId, 'src:u:docs'));
      };
      expect(await clean('ownerless-of-an-input', 'directory:directory')).toEqual([false]);
      expect(await clean('ownerless-of-any-input')).toEqual([true]);
    } finally {
      await redis.hset(keys.identity('user', 'ada'), 'o', owner ?? 'directory:directory');
    }
  });

  it('claims a clean account as the listing indexes it when the plan walks the stored identities', async () => {
    const { redis, keys } = engine.bridge.store;
    const listed = readListedUser(JSON.parse(JSON.stringify(platformUser('ada'))));
    const run = async (syncId: string, pages: ObservedUser[][], staged = false) => {
      const listing = new SyncListing(redis, keys, syncId, 'directory:directory');
      listing.claimCleanWhenListed();
      for (const page of pages) await listing.indexPage('user', page);
      const claimedWhenListed = (await listing.resources('user', [listed.id]))[0]?.claimed;
      const docs = keys.syncWork(syncId, 'src:u:docs');
      if (staged) await redis.hset(docs, 'ada', '{}');
      const [clean] = await cleanUsersOf(listing, ['ada'], docs);
      const claimedWhenPlanned = (await listing.resources('user', [listed.id]))[0]?.claimed;
      // The account the plan takes as the user's match (a group's member: MEMBER_TARGETS).
      const matchedAs = await redis.hget(listing.cleanClaims().key, 'ada');
      await redis.del(docs);
      return { claimedWhenListed, clean, claimedWhenPlanned, matchedAs, ...(await usable(listing)) };
    };
    const both = (claimed: boolean, clean: boolean) => ({
      claimedWhenListed: claimed,
      clean,
      claimedWhenPlanned: claimed && clean,
      matchedAs: clean ? listed.id : null,
      usableByOthers: !(claimed && clean),
    });
    expect(await run('claims-once', [[listed]])).toEqual(both(true, true));
    expect(await run('claims-twice', [[listed], [listed]])).toEqual(both(false, false));
    expect(await run('claims-twice-on-a-page', [[listed, listed]])).toEqual(both(false, false));
    // Staged after all (a run that stages what it walks): the account is given back to its plan.
    expect(await run('claims-staged', [[listed]], true)).toEqual({
      claimedWhenListed: true,
      clean: false,
      claimedWhenPlanned: false,
      matchedAs: null,
      usableByOthers: true,
    });
  });

  it('gives back a claimed account to a user found clean on one page and not on a later one', async () => {
    // A stale target-id entry also names ada: that account, listed again after ada's own, makes
    // ada no longer clean; the account claimed for ada on the page before is given back.
    const { redis, keys } = engine.bridge.store;
    const listed = readListedUser(JSON.parse(JSON.stringify(platformUser('ada'))));
    const stale = { ...listed, id: 'T-stale-ada' };
    await redis.hset(keys.targetIdIndex('user'), stale.id, 'ada');
    try {
      const listing = new SyncListing(redis, keys, 'claims-given-back', 'directory:directory');
      listing.claimCleanWhenListed();
      for (const page of [[stale], [listed], [stale]]) await listing.indexPage('user', page);
      expect((await listing.resources('user', [listed.id]))[0]?.claimed).toBe(false);
      expect(await usable(listing)).toEqual({ usableByOthers: true });
      expect(await cleanUsersOf(listing, ['ada'], keys.syncWork('claims-given-back', 'src:u:docs'))).toEqual([
        false,
      ]);
    } finally {
      await redis.hdel(keys.targetIdIndex('user'), stale.id);
    }
  });

  it("takes a clean user's claimed account as its match, even if its recorded one changed since", async () => {
    // A reconcile job moved ada to another account after the listing: the plan stays with what it
    // listed (groups are planned against it; the job enqueues ada's groups itself).
    const { redis, keys } = engine.bridge.store;
    const listed = readListedUser(JSON.parse(JSON.stringify(platformUser('ada'))));
    const syncId = 'claims-moved';
    const listing = new SyncListing(redis, keys, syncId, 'directory:directory');
    listing.claimCleanWhenListed();
    await listing.indexPage('user', [listed]);
    await redis.hset(keys.identity('user', 'ada'), 't', 'T-moved');
    try {
      const users = { users: { key: keys.owned('user', 'directory:directory'), mode: 'z' as const } };
      const targets = (claimed: boolean) =>
        memberTargets(
          redis,
          keys,
          { ...users, scope: 'directory:directory' },
          { matched: keys.syncWork(syncId, 'matched'), clean: { ...listing.cleanClaims(), claimed } },
          ['ada'],
        );
      expect(await targets(true)).toEqual([listed.id]);
      expect(await targets(false)).toEqual(['T-moved']);
      // Staged after all: the account the listing claimed is the one given back.
      const docs = keys.syncWork(syncId, 'src:u:docs');
      await redis.hset(docs, 'ada', '{}');
      expect(await cleanUsersOf(listing, ['ada'], docs)).toEqual([false]);
      expect((await listing.resources('user', [listed.id]))[0]?.claimed).toBe(false);
      await redis.del(docs);
    } finally {
      await redis.hset(keys.identity('user', 'ada'), 't', listed.id);
    }
  });
});

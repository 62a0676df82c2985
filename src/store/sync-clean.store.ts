import { hash } from 'node:crypto';
import type { IdentityKind } from '../domain/identity.js';
import type { SourceIds } from './desired-state.bulk.js';
import { familyArgs, type Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { CLEAN_GROUPS, CLEAN_USERS, DIGEST_PREFIX, MARK_CLEAN } from './lua/sync-clean.lua.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { inSlices, slices } from './script-slices.js';
import type { SyncListing } from './sync-listing.store.js';

const scripts = {
  users: new LuaScript(CLEAN_USERS),
  groups: new LuaScript(CLEAN_GROUPS),
  mark: new LuaScript(MARK_CLEAN),
};

/** Group members a CLEAN_GROUPS call may resolve: a call stays within a few milliseconds of Redis. */
const GROUP_MEMBERS_PER_CALL = 2000;
/**
 * A group's weight in a slice of CLEAN_GROUPS (script-slices.ts): its reads and its members' (20
 * in the bench's directory), so that a call holds Redis for 1–3 ms.
 */
const GROUP_CHECK_WEIGHT = 50;

/** An identity a plan found matching its account, and the digest it is recorded clean by (cleanDigest). */
export interface CleanFound {
  id: string;
  digest: string;
}

/** Where CLEAN_GROUPS finds the run's staged groups, its source's users and its plan's matches. */
export interface GroupPlanKeys {
  /** src:g:docs. */
  stagedDocs: string;
  /** The source's users (as MEMBER_TARGETS reads them). */
  users: SourceIds;
  /** The plan's matched hash. */
  matched: string;
}

/**
 * A full sync's clean identities (lua/sync-clean.lua.ts): those a sync last found matching their
 * listed accounts and that are still as it saw them, so that the plan counts them unchanged
 * without reading them; and the record (dg) of those a plan finds matching. `scope`: the owner the
 * sync writes as ('' none).
 */
export class SyncCleanChecks {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly listing: SyncListing,
    private readonly scope = '',
  ) {}

  /**
   * Of a chunk of users, which the listing found clean (INDEX_PAGE: their desired state and account
   * as a sync last found them matching) and the run stages no desired state for: claimed as their
   * matches (by the listing itself after SyncListing.claimCleanWhenListed), counted unchanged
   * without being read.
   */
  async users(ids: readonly string[], stagedDocs: string): Promise<boolean[]> {
    const keys = [this.claims().key, stagedDocs, this.listing.indexKey('user')];
    const head = [...familyArgs(this.keys.identityFamily('user')), this.claimArg()];
    const given: string[] = [];
    const flags = await inSlices(
      ids,
      () => 5,
      async (slice) => {
        const reply = (await storeCall(() => scripts.users.run(this.redis, keys, [...head, ...slice]))) as [
          string[],
          string[],
        ];
        given.push(...reply[1]);
        return reply[0];
      },
    );
    // Accounts given back before their users' candidates are looked up.
    await this.listing.reindex('user', given);
    return flags.map((flag) => flag === '1');
  }

  /**
   * Of a chunk of groups, which the plan need not read (CLEAN_GROUPS): their desired state and
   * account as a sync last found them matching, their members resolving to the account's members.
   * Their accounts are claimed as their matches; they are counted unchanged. Called once the
   * plan's users are planned (their matches written).
   */
  async groups(ids: readonly string[], plan: GroupPlanKeys): Promise<boolean[]> {
    const keys = [
      plan.stagedDocs,
      this.listing.indexKey('group'),
      this.keys.targetIdIndex('group'),
      this.keys.managed('group'),
      plan.users.key,
      plan.matched,
      this.claims().key,
    ];
    const head = [
      ...familyArgs(this.keys.identityFamily('group')),
      ...familyArgs(this.keys.docFamily('group')),
      ...familyArgs(this.keys.membersFamily()),
      ...familyArgs(this.keys.identityFamily('user')),
      this.scope,
      plan.users.mode,
      this.claimArg(),
      String(GROUP_MEMBERS_PER_CALL),
    ];
    const flags = await inSlices(
      ids,
      () => GROUP_CHECK_WEIGHT,
      (slice) =>
        storeCall(() => scripts.groups.run(this.redis, keys, [...head, ...slice])) as Promise<string[]>,
    );
    return flags.map((flag) => flag === '1');
  }

  /**
   * Records identities the plan found matching their listed accounts, by the digest of each one's
   * desired state and account as compared (cleanDigest), so that the next sync that lists them so
   * finds them clean. Where an identity is not stored, nothing is recorded for it.
   */
  async mark(kind: IdentityKind, found: readonly CleanFound[]): Promise<void> {
    const head = familyArgs(this.keys.identityFamily(kind));
    const key = this.listing.indexKey(kind);
    await Promise.all(
      slices(found, () => 2).map((slice) =>
        storeCall(() =>
          scripts.mark.run(this.redis, [key], [...head, ...slice.flatMap((u) => [u.id, u.digest])]),
        ),
      ),
    );
  }

  private claims() {
    return this.listing.cleanClaims();
  }

  private claimArg(): '' | '1' {
    return this.claims().claimed ? '1' : '';
  }
}

/**
 * What an identity found matching its account is recorded clean by (its hash's dg): the SHA-1 of
 * the version of its kind's comparison rules, its desired state as stored (canonical JSON) and the
 * account's compact form, as INDEX_PAGE (users) and CLEAN_GROUPS compute it again from what is
 * stored and listed.
 */
export function cleanDigest(kind: IdentityKind, json: string, packed: string): string {
  return hash('sha1', `${DIGEST_PREFIX[kind]}\n${json}\n${packed}`, 'hex');
}

import type { ObservedGroup } from '../domain/group-diff.js';
import type { IdentityKind } from '../domain/identity.js';
import { observedName, packObserved, unpackObserved } from '../domain/observed-form.js';
import type { ObservedUser } from '../domain/user-diff.js';
import { familyArgs, type Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import type { CleanClaims } from './desired-state.bulk.js';
import { CANDIDATES, CLAIM, INDEX_PAGE } from './lua/sync-listing.lua.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { inSlices, slices } from './script-slices.js';

const scripts = {
  index: new LuaScript(INDEX_PAGE),
  candidates: new LuaScript(CANDIDATES),
  claim: new LuaScript(CLAIM),
};

type Observed = ObservedUser | ObservedGroup;

/** A listed resource as the plan sees it: what the listing showed, and whether a match claimed it. */
export interface ListedResource<R extends Observed = Observed> {
  resource: R;
  /** Its compact form as listed (domain/observed-form.ts): what a clean user's digest covers. */
  packed: string;
  /** Not to be matched: a match of the plan took it, or it is another input's (`elsewhere`). */
  claimed: boolean;
  /** The target of another input's identity (SPEC §6, Ownership). */
  elsewhere?: boolean;
  /** Recorded as the target of a managed identity (of any input). */
  managed?: boolean;
  /** Claimed by the look-up itself, as this identity's match (see candidates). */
  preclaimed?: boolean;
}

export interface CandidateLists {
  lists: (ListedResource | undefined)[][];
  /** Resources the look-up claimed that were no managed identity's target. */
  claimedUnmanaged: number;
}

/** What an identity is looked up by, in matching order (SPEC §6). */
export interface MatchKeys {
  targetId?: string;
  externalId: string;
  /** userName / displayName, lower-cased. */
  name: string;
}

/**
 * A full sync's index of the platform's listing in Redis (P:sync:<id>:ls:…, keys.ts): each
 * resource's compact form by target id, and its target id by externalId and by lower-cased name,
 * written page by page as the listing arrives, so that the process never holds the listing. The
 * plan then looks up a chunk of identities at a time and marks the resources its matches claim.
 * `scope`: the owner the sync writes as; the targets of other inputs' identities are never matched.
 */
export class SyncListing {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    readonly syncId: string,
    private readonly scope = '',
  ) {}

  /** The scripts' claim argument: '1' once claimCleanWhenListed. */
  private claimArg: '' | '1' = '';

  /**
   * The plan walks every stored identity of the run and stages no desired state (its source is the
   * desired state, or unchanged since its last applied read): the listing then claims a clean
   * user's account as its match itself, and the plan only counts it (CLEAN_USERS). A run that
   * reads its source may bring new identities that match such an account: it claims at planning.
   */
  claimCleanWhenListed(): void {
    this.claimArg = '1';
  }

  /** Where the clean users are, and whether their accounts were claimed as their matches. */
  cleanClaims(): CleanClaims {
    return { key: this.cleanKey(), claimed: this.claimArg === '1' };
  }

  /**
   * Indexes a page; returns {added, addedManaged}: new resources, and of them managed identities'
   * targets (of any input).
   */
  async indexPage(
    kind: IdentityKind,
    resources: readonly Observed[],
  ): Promise<{ added: number; addedManaged: number }> {
    // Six a resource: a look-up, the hashing and its share of the page's commands.
    const counts = await Promise.all(slices(resources, () => 6).map((slice) => this.indexSlice(kind, slice)));
    return {
      added: counts.reduce((sum, c) => sum + c.added, 0),
      addedManaged: counts.reduce((sum, c) => sum + c.addedManaged, 0),
    };
  }

  private async indexSlice(
    kind: IdentityKind,
    resources: readonly Observed[],
  ): Promise<{ added: number; addedManaged: number }> {
    const args = resources.flatMap((r) => [
      r.id,
      r.externalId ?? '',
      observedName(kind, r),
      packObserved(kind, r),
    ]);
    const keys = [
      ...this.indexKeys(kind),
      this.keys.targetIdIndex(kind),
      this.keys.managed(kind),
      this.cleanKey(),
    ];
    const head = [
      this.scope,
      ...familyArgs(this.keys.identityFamily(kind)),
      ...familyArgs(this.keys.docFamily(kind)),
      kind === 'user' ? 'u' : 'g',
      this.claimArg,
    ];
    const [added, addedManaged, given] = (await storeCall(() =>
      scripts.index.run(this.redis, keys, [...head, ...args]),
    )) as [number, number, string[]];
    await this.reindex(kind, given);
    return { added, addedManaged };
  }

  /**
   * Indexes by externalId and name listed accounts a claim gave back (INDEX_PAGE leaves the account
   * it claims for a clean user out of those indexes: no other identity may match it meanwhile).
   */
  async reindex(kind: IdentityKind, targetIds: readonly string[]): Promise<void> {
    if (targetIds.length === 0) return;
    const [, byExternalId, byName] = this.indexKeys(kind);
    const found = await this.resources(kind, targetIds);
    const externalIds: string[] = [];
    const names: string[] = [];
    for (const account of found) {
      if (!account) continue;
      const { resource } = account;
      if (resource.externalId) externalIds.push(resource.externalId, resource.id);
      names.push(observedName(kind, resource), resource.id);
    }
    await storeCall(() =>
      Promise.all([
        externalIds.length > 0 ? this.redis.hset(byExternalId, ...externalIds) : 0,
        names.length > 0 ? this.redis.hset(byName, ...names) : 0,
      ]),
    );
  }

  /**
   * For each identity, its candidates in matching order: by recorded target id, externalId, name.
   * The resource of the recorded target id, when listed and unclaimed, is the match: it comes
   * alone and claimed (`preclaimed`), as the match a plan makes of it (pickMatch) — unless a match
   * of this process that Redis has not seen yet took it: `more` then gives the other candidates.
   */
  async candidates(kind: IdentityKind, lookups: readonly MatchKeys[]): Promise<CandidateLists> {
    // Up to 5 look-ups an identity.
    const parts = await Promise.all(
      slices(lookups, () => 5).map((slice) => this.candidatesSlice(kind, slice)),
    );
    return {
      lists: parts.flatMap((part) => part.lists),
      claimedUnmanaged: parts.reduce((sum, part) => sum + part.claimedUnmanaged, 0),
    };
  }

  private async candidatesSlice(kind: IdentityKind, lookups: readonly MatchKeys[]): Promise<CandidateLists> {
    const args = lookups.flatMap((l) => [l.targetId ?? '', l.externalId, l.name]);
    const reply = (await storeCall(() => scripts.candidates.run(this.redis, this.indexKeys(kind), args))) as (
      string | number
    )[];
    const lists = lookups.map((_, i) => {
      const found = new Map<string, ListedResource | undefined>();
      return [0, 1, 2].map((c) => {
        const id = reply[1 + i * 6 + c * 2] as string;
        const entry = reply[1 + i * 6 + c * 2 + 1] as string;
        if (!id) return undefined;
        if (entry.startsWith('!'))
          return { ...listed(kind, id, entry.slice(1)), claimed: false, preclaimed: true };
        if (entry !== '=') found.set(id, listed(kind, id, entry));
        return found.get(id);
      });
    });
    return { lists, claimedUnmanaged: Number(reply[0] ?? 0) };
  }

  /** The candidates by externalId and name alone (the recorded target id's resource was taken). */
  async more(kind: IdentityKind, lookup: MatchKeys): Promise<(ListedResource | undefined)[]> {
    const { lists } = await this.candidates(kind, [{ externalId: lookup.externalId, name: lookup.name }]);
    return lists[0] ?? [];
  }

  /** Listed resources by target id (claimed or not), e.g. a managed identity's, to deprovision. */
  async resources(kind: IdentityKind, targetIds: readonly string[]): Promise<(ListedResource | undefined)[]> {
    if (targetIds.length === 0) return [];
    const entries = await storeCall(() => this.redis.hmget(this.indexKeys(kind)[0] ?? '', ...targetIds));
    return targetIds.map((id, i) => listed(kind, id, entries[i] ?? undefined));
  }

  /** Target ids by externalId (a create whose answer was lost is found by the externalId it sent). */
  async byExternalId(kind: IdentityKind, externalIds: readonly string[]): Promise<(string | undefined)[]> {
    if (externalIds.length === 0) return [];
    const ids = await storeCall(() => this.redis.hmget(this.indexKeys(kind)[1] ?? '', ...externalIds));
    return ids.map((id) => id ?? undefined);
  }

  /** Marks resources as claimed by a match; returns how many of them were not managed identities' targets. */
  async claim(kind: IdentityKind, targetIds: readonly string[]): Promise<number> {
    const key = this.indexKeys(kind)[0] ?? '';
    const counts = await inSlices(
      targetIds,
      () => 2,
      async (slice) => [(await storeCall(() => scripts.claim.run(this.redis, [key], slice))) as number],
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** How many distinct resources of a kind were listed. */
  async count(kind: IdentityKind): Promise<number> {
    return storeCall(() => this.redis.hlen(this.indexKeys(kind)[0] ?? ''));
  }

  /**
   * Up to `limit` listed resources that no match claimed and no identity manages: the accounts a
   * sync leaves alone. Scans the index a batch at a time.
   */
  async unclaimed(kind: IdentityKind, limit: number): Promise<Observed[]> {
    const out: Observed[] = [];
    const key = this.indexKeys(kind)[0] ?? '';
    let cursor = '0';
    do {
      const [next, flat] = await storeCall(() => this.redis.hscan(key, cursor, 'COUNT', 1000));
      cursor = next;
      for (let i = 0; i < flat.length && out.length < limit; i += 2) {
        const entry = flat[i + 1] ?? '';
        if (entry.startsWith('u')) out.push(unpackObserved(kind, flat[i] ?? '', entry.slice(1)));
      }
    } while (cursor !== '0' && out.length < limit);
    return out;
  }

  private cleanKey(): string {
    return this.keys.syncWork(this.syncId, 'ls:u:clean');
  }

  /** The listing's resources of a kind (ls:K:r). */
  indexKey(kind: IdentityKind): string {
    return this.indexKeys(kind)[0];
  }

  private indexKeys(kind: IdentityKind): [string, string, string] {
    const k = kind === 'user' ? 'u' : 'g';
    return [
      this.keys.syncWork(this.syncId, `ls:${k}:r`),
      this.keys.syncWork(this.syncId, `ls:${k}:x`),
      this.keys.syncWork(this.syncId, `ls:${k}:n`),
    ];
  }
}

function listed(kind: IdentityKind, id: string, entry: string): ListedResource;
function listed(
  kind: IdentityKind,
  id: string | undefined,
  entry: string | undefined,
): ListedResource | undefined;
function listed(
  kind: IdentityKind,
  id: string | undefined,
  entry: string | undefined,
): ListedResource | undefined {
  if (!id || !entry) return undefined;
  const flag = entry.charAt(0);
  const packed = entry.slice(1);
  const resource = unpackObserved(kind, id, packed);
  if (flag === 'o') return { resource, packed, claimed: true, elsewhere: true, managed: true };
  const managed = flag === 'm' || flag === 'M';
  return { resource, packed, claimed: flag === 'U' || flag === 'M', ...(managed ? { managed } : {}) };
}

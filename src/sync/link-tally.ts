import type { IdentityKind } from '../domain/identity.js';

/** The lists a link-only run reports (SPEC §6), each counted per kind and sampled by name. */
export const LINK_LISTS = ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous'] as const;
export type LinkList = (typeof LINK_LISTS)[number];

/** Identities shown by name per list; the counts are always whole. */
export const LINK_SAMPLE = 100;

/** A platform account that fits an identity: its id, what matched, its name. */
export interface LinkCandidate {
  targetId: string;
  by: string;
  name: string;
}

/**
 * One identity of a list: the source's (id) or, unmatched on the platform, an account the bridge
 * leaves alone (id null, targetId). `name`: its userName / displayName.
 */
export interface LinkItem {
  kind: IdentityKind;
  id: string | null;
  name: string | null;
  targetId?: string;
  candidates?: LinkCandidate[];
}

/**
 * What a link-only run found: source identities linked to a platform account (recorded as
 * managed), unmatched in the source (a normal sync would create them), platform accounts no one
 * matched and no identity manages (left alone), identities two accounts fit (sent to the conflict
 * inbox). Counts per kind and the first LINK_SAMPLE of each list, for the record.
 */
export class LinkTally {
  private readonly counts = Object.fromEntries(
    LINK_LISTS.map((list) => [list, { user: 0, group: 0 }]),
  ) as Record<LinkList, Record<IdentityKind, number>>;
  private readonly samples = Object.fromEntries(LINK_LISTS.map((list) => [list, []])) as unknown as Record<
    LinkList,
    LinkItem[]
  >;

  add(list: LinkList, item: LinkItem): void {
    this.counts[list][item.kind]++;
    if (this.samples[list].length < LINK_SAMPLE) this.samples[list].push(item);
  }

  /** Accounts counted without being named one by one (beyond the sample taken). */
  addCount(list: LinkList, kind: IdentityKind, count: number): void {
    this.counts[list][kind] += count;
  }

  total(list: LinkList): number {
    return this.counts[list].user + this.counts[list].group;
  }

  /** Each list's count, per kind. */
  perKind(): { users: Record<LinkList, number>; groups: Record<LinkList, number> } {
    const per = (kind: IdentityKind) =>
      Object.fromEntries(LINK_LISTS.map((list) => [list, this.counts[list][kind]])) as Record<
        LinkList,
        number
      >;
    return { users: per('user'), groups: per('group') };
  }

  /** As GET /admin/sync/{jobId} shows it (plan.linkOnly). */
  report() {
    const totals = Object.fromEntries(LINK_LISTS.map((list) => [list, this.total(list)])) as Record<
      LinkList,
      number
    >;
    return { ...totals, ...this.perKind(), samples: this.samples };
  }
}

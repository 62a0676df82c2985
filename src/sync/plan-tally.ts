import type { ObservedGroup } from '../domain/group-diff.js';
import type { IdentityKind } from '../domain/identity.js';
import { emptyCounts, type Decision, type PlannedChange } from '../domain/sync-plan.js';
import type { ObservedUser } from '../domain/user-diff.js';

/** Changes, removals and groups losing members shown by name in the plan; the counts are always whole. */
export const SAMPLE = 100;
/** Groups, and members per group, shown of the membership removals. */
export const MEMBERSHIP_SAMPLE = 25;

export interface SampledChange {
  kind: IdentityKind;
  id: string;
  action: PlannedChange['action'];
  targetId?: string;
  attributes?: string[];
  userName?: string;
  displayName?: string;
}

export interface MembershipSample {
  group: string;
  displayName: string | null;
  total: number;
  /** Target user ids taken out (the first MEMBERSHIP_SAMPLE), named when the report is made. */
  removed: string[];
}

/**
 * A source identity the run does not plan (SPEC §6, Ownership): its id is owned by another input
 * (`same-id`: the store records the conflict when the source is written); its name, externalId or
 * the platform account it matches is another input's identity's (`account`: parked with a
 * conflict); or it is parked already (`parked`: its conflict waits for an admin) — by its own
 * `ambiguous` conflict (two platform accounts fit it, no other input involved), counted apart.
 */
export interface RefusedItem {
  kind: IdentityKind;
  id: string;
  name: string;
  reason: 'same-id' | 'account' | 'parked' | 'ambiguous';
  /** The input that holds it, when known. */
  owner?: string;
  /** account: the platform account. */
  targetId?: string;
}

/**
 * What a plan keeps in memory while it is computed a chunk at a time: counts, and bounded samples
 * of its changes and removals for the report. The changes themselves go to Redis (plan-writer.ts).
 */
export class PlanTally {
  readonly counts = { users: emptyCounts(), groups: emptyCounts() };
  unmanagedUsers = 0;
  readonly refused = { user: 0, group: 0, sample: [] as RefusedItem[] };
  /** Of the source's identities not planned, those parked by their own ambiguous conflict. */
  readonly ambiguous = { user: 0, group: 0 };
  readonly changes = { user: 0, group: 0 };
  readonly sample: SampledChange[] = [];
  readonly removedUsers = { total: 0, sample: [] as { id: string; userName: string | null }[] };
  readonly removedGroups = { total: 0, sample: [] as { id: string; displayName: string | null }[] };
  readonly memberships = { total: 0, groups: 0, sample: [] as MembershipSample[] };
  /** Of the unchanged, the identities the listing found clean (counted, not planned). */
  unchangedClean = 0;

  /** A desired identity's decision; `name` is its userName / displayName. */
  decided(kind: IdentityKind, decision: Decision, name: string): void {
    this.of(kind)[decision.counted]++;
    if (decision.change) this.changed(decision.change, name);
    const removed = decision.removedMembers ?? [];
    if (removed.length === 0) return;
    this.memberships.total += removed.length;
    this.memberships.groups++;
    if (this.memberships.sample.length < MEMBERSHIP_SAMPLE) {
      const observed = decision.change?.observed as ObservedGroup | null | undefined;
      this.memberships.sample.push({
        group: decision.change?.id ?? '',
        displayName: observed?.displayName ?? null,
        total: removed.length,
        removed: removed.slice(0, MEMBERSHIP_SAMPLE),
      });
    }
  }

  deprovisioned(change: PlannedChange): void {
    this.of(change.kind).deprovision++;
    const name =
      change.kind === 'user'
        ? (change.observed as ObservedUser | null)?.userName
        : (change.observed as ObservedGroup | null)?.displayName;
    this.changed(change, name);
    if (change.kind === 'user') {
      this.removedUsers.total++;
      if (this.removedUsers.sample.length < SAMPLE)
        this.removedUsers.sample.push({ id: change.id, userName: name ?? null });
    } else {
      this.removedGroups.total++;
      if (this.removedGroups.sample.length < SAMPLE)
        this.removedGroups.sample.push({ id: change.id, displayName: name ?? null });
    }
  }

  /** Identities the listing found clean (as a sync last found them matching): unchanged, not planned. */
  foundClean(kind: IdentityKind, count: number): void {
    this.of(kind).unchanged += count;
    this.unchangedClean += count;
  }

  /** A source identity another input holds, or one parked as ambiguous: not planned (RefusedItem). */
  refusedBy(item: RefusedItem): void {
    (item.reason === 'ambiguous' ? this.ambiguous : this.refused)[item.kind]++;
    if (this.refused.sample.length < SAMPLE) this.refused.sample.push(item);
  }

  get totalChanges(): number {
    return this.changes.user + this.changes.group;
  }

  private of(kind: IdentityKind) {
    return kind === 'user' ? this.counts.users : this.counts.groups;
  }

  private changed(change: PlannedChange, name: string | undefined): void {
    this.changes[change.kind]++;
    if (this.sample.length >= SAMPLE) return;
    this.sample.push({
      kind: change.kind,
      id: change.id,
      action: change.action,
      ...(change.targetId ? { targetId: change.targetId } : {}),
      ...(change.attributes ? { attributes: change.attributes } : {}),
      ...(name === undefined ? {} : change.kind === 'user' ? { userName: name } : { displayName: name }),
    });
  }
}

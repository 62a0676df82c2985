import {
  applyPolicy,
  type CompiledPolicy,
  type Mapped,
  type PolicyKind,
  type PolicyObserver,
} from '../domain/identity-policy.js';
import { evaluationInput, factsOf, groupFacts, itemFacts, type GroupRef } from '../domain/policy-context.js';
import type { SnapshotKind } from '../domain/snapshot-ledger.js';
import type { ProblemPath } from '../domain/snapshot-problems.js';
import type { SnapshotSink } from '../domain/snapshot-sink.js';
import type { ItemOrigin } from '../domain/snapshot-validator.js';

/** The groups each user is in, by user id (sources whose items say membership on the groups). */
export type Memberships = ReadonlyMap<string, readonly GroupRef[]>;

/** What a read under a changed policy compares it with (a preview, a changed configuration). */
export interface Comparison {
  before: CompiledPolicy;
  observer: PolicyObserver;
}

/**
 * Applies an input's scope and mapping (domain/identity-policy.ts) to the items its source hands a
 * sync, between the source and the sync's sink: users out of scope and those it cannot map are
 * left out (the latter reported through `skip`), and so are they from the groups' members; groups
 * likewise. With a comparison, each identity is also mapped by the other policy and the observer
 * told both outcomes.
 */
export class PolicySink implements SnapshotSink {
  private readonly leftOut = new Set<string>();

  constructor(
    private readonly inner: SnapshotSink,
    private readonly policy: CompiledPolicy,
    private readonly memberships: Memberships = new Map(),
    private readonly comparison?: Comparison,
  ) {}

  async add(kind: SnapshotKind, items: readonly unknown[], origins?: readonly (ItemOrigin | undefined)[]) {
    const name: PolicyKind = kind;
    const out: unknown[] = [];
    const outOrigins: (ItemOrigin | undefined)[] = [];
    items.forEach((raw, i) => {
      const origin = origins?.[i];
      const item = this.map(name, raw, origin);
      if (item === undefined) return;
      out.push(item);
      outOrigins.push(origin);
    });
    if (out.length > 0) await this.inner.add(kind, out, origins ? outOrigins : undefined);
  }

  /** The item to hand on, or undefined when the identity is left out. */
  private map(kind: PolicyKind, raw: unknown, origin: ItemOrigin | undefined): unknown {
    if (typeof raw !== 'object' || raw === null) return raw;
    const item = raw as Record<string, unknown>;
    const id = typeof item.id === 'string' ? item.id : undefined;
    // An item without an id is the snapshot's to report as it is.
    if (id === undefined) return raw;
    const base = kind === 'groups' ? this.withoutLeftOut(item) : item;
    const groups = this.memberships.get(id);
    const attached = factsOf(raw);
    const facts = attached
      ? groups
        ? { ...attached, ...groupFacts(groups) }
        : attached
      : itemFacts(raw, groups);
    const input = evaluationInput(id, facts);
    const after = applyPolicy(this.policy[kind], kind, base, input);
    const label = origin?.label ?? id;
    if (this.comparison) {
      const before = applyPolicy(this.comparison.before[kind], kind, base, input);
      if (!this.comparison.observer.compare(kind, id, label, before, after)) return this.leave(kind, id);
    }
    if (after.outcome === 'mapped') return after.item;
    if (after.outcome === 'unmappable') this.inner.skip?.(kind, label, after.reason);
    return this.leave(kind, id);
  }

  private leave(kind: PolicyKind, id: string): undefined {
    if (kind === 'users') this.leftOut.add(id);
    return undefined;
  }

  private withoutLeftOut(group: Record<string, unknown>): Record<string, unknown> {
    if (this.leftOut.size === 0 || !Array.isArray(group.members)) return group;
    return { ...group, members: (group.members as unknown[]).filter((m) => !this.leftOut.has(String(m))) };
  }

  // A property: sources hand it on unbound (`problem: sink.problem`).
  readonly problem = (path: ProblemPath, reason: string): void => this.inner.problem(path, reason);

  async knownUsers(ids: readonly string[]): Promise<boolean[]> {
    const known = await this.inner.knownUsers(ids);
    return known.map((k, i) => k && !this.leftOut.has(ids[i] ?? ''));
  }

  remember(table: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    return this.inner.remember(table, entries);
  }

  recall(table: string, keys: readonly string[]): Promise<(string | undefined)[]> {
    return this.inner.recall(table, keys);
  }

  skip(kind: SnapshotKind, label: string, reason: string): void {
    this.inner.skip?.(kind, label, reason);
  }
}

/** Whether a mapped outcome is the identity in scope and mapped. */
export function isMapped(result: Mapped): result is Extract<Mapped, { outcome: 'mapped' }> {
  return result.outcome === 'mapped';
}

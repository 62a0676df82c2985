import type { z } from 'zod';
import type { DesiredGroup } from './identity.js';
import { identityIdProblem } from './platform-rules.js';
import { formatItemPath, ProblemList, quote, type ProblemPath } from './snapshot-problems.js';
import { groupSchema, userSchema } from './snapshot.schema.js';
import type {
  ItemRef,
  LedgerAnswer,
  LedgerEntry,
  MemberCheck,
  SnapshotKind,
  SnapshotLedger,
} from './snapshot-ledger.js';
import { findMalformedText, MALFORMED_TEXT_REASON } from './well-formed-text.js';

/**
 * Validates a snapshot a batch of items at a time (SPEC §5.4), so that a directory of any size can
 * be read as a stream and each item's raw form dropped once checked. Per item: its shape
 * (snapshot.schema.ts), well-formed text and usable ids. Across items, through a ledger that may
 * live outside the process (snapshot-ledger.ts): unique ids, unique userNames / displayNames
 * (case-insensitive), externalIds that would collide on the target, and group members naming
 * neither a user of the snapshot nor one the bridge holds for another input (checked at the end,
 * when every user is known). An item's own problems come before those it shares with earlier items.
 */

export type Kind = SnapshotKind;

/** Where an item came from, for its problems: a label (a DN, an upstream id) or an NDJSON line. */
export interface ItemOrigin {
  label?: string;
  line?: number;
}

export interface SnapshotCounts {
  users: number;
  groups: number;
}

export type SnapshotVerdict =
  | { ok: true; counts: SnapshotCounts }
  | {
      ok: false;
      /** `path: reason` lines, at most 100 and a count line. */ problems: string[];
      total: number;
      counts: SnapshotCounts;
    };

const DEFERRED_BATCH = 1000;

/** An item as problems name it: `users[3]`, `users["uid=ada,…"]`. */
export function itemHead(kind: Kind, ref: ItemRef): string {
  return ref.label === undefined ? `${kind}[${ref.index}]` : `${kind}[${quote(ref.label)}]`;
}

/** An earlier item named in a problem's reason, with its line when it came on one. */
export function itemName(kind: Kind, ref: ItemRef): string {
  return itemHead(kind, ref) + (ref.line === undefined ? '' : ` (line ${ref.line})`);
}

export class SnapshotChecker {
  private readonly problems = new ProblemList();
  private readonly counts: SnapshotCounts = { users: 0, groups: 0 };

  constructor(private readonly ledger: SnapshotLedger) {}

  /** No problem found so far. */
  get valid(): boolean {
    return this.problems.total === 0;
  }

  /** Checks a batch of users; returns the valid ones in the store's form. */
  async addUsers(raws: readonly unknown[], origins?: readonly (ItemOrigin | undefined)[]) {
    return this.addBatch('users', raws, origins, userSchema, 'userName');
  }

  /** Checks a batch of groups; members not yet known as users are checked again at the end. */
  async addGroups(
    raws: readonly unknown[],
    origins?: readonly (ItemOrigin | undefined)[],
  ): Promise<DesiredGroup[]> {
    const first = this.counts.groups;
    const groups = await this.addBatch('groups', raws, origins, groupSchema, 'displayName');
    const checks: MemberCheck[] = [];
    raws.forEach((raw, i) => {
      const members = field(raw, 'members');
      if (!Array.isArray(members)) return;
      const group = ref(first + i, origins?.[i]);
      (members as unknown[]).forEach((member, position) => {
        if (typeof member === 'string' && member.trim() !== '') checks.push({ group, position, member });
      });
    });
    if (checks.length === 0) return groups;
    const known = await this.ledger.hasUsers(checks.map((c) => c.member));
    await this.ledger.defer(checks.filter((_, i) => known[i] !== true));
    return groups;
  }

  /** A problem of the snapshot's top level, e.g. `users: not an array`. */
  addProblem(path: ProblemPath, reason: string): void {
    this.problems.add(path, reason);
  }

  async finish(): Promise<SnapshotVerdict> {
    for await (const batch of this.ledger.deferred(DEFERRED_BATCH)) {
      const known = await this.ledger.hasUsers(batch.map((c) => c.member));
      const unknown = batch.filter((_, i) => known[i] !== true);
      const ledger = this.ledger;
      const elsewhere = ledger.heldElsewhere ? await ledger.heldElsewhere(unknown.map((c) => c.member)) : [];
      const why = ledger.heldElsewhere ? ': in neither the snapshot nor another input' : '';
      unknown.forEach((check, i) => {
        if (elsewhere[i] === true) return;
        const reason = `unknown user ${quote(check.member)}${why}`;
        this.report('groups', check.group, ['members', check.position], reason);
      });
    }
    const counts = { ...this.counts };
    const { total } = this.problems;
    if (total > 0) return { ok: false, problems: this.problems.list(), total, counts };
    return { ok: true, counts };
  }

  private async addBatch<T>(
    kind: Kind,
    raws: readonly unknown[],
    origins: readonly (ItemOrigin | undefined)[] | undefined,
    schema: z.ZodType<T>,
    nameField: 'userName' | 'displayName',
  ): Promise<T[]> {
    const valid: T[] = [];
    const own: (() => void)[][] = [];
    const entries = raws.map((raw, i) => {
      const item = ref(this.counts[kind]++, origins?.[i]);
      own.push(this.checkItem(kind, raw, item, schema, valid));
      return ledgerEntry(raw, item, nameField);
    });
    const answers = await this.ledger.record(kind, entries);
    entries.forEach((entry, i) => {
      for (const report of own[i] ?? []) report();
      this.reportClashes(kind, entry, answers[i] ?? {}, nameField);
    });
    return valid;
  }

  /** The item's own problems, as reports to make once the batch's order is known. */
  private checkItem<T>(kind: Kind, raw: unknown, item: ItemRef, schema: z.ZodType<T>, valid: T[]) {
    const reports: (() => void)[] = [];
    const add = (path: ProblemPath, reason: string) =>
      reports.push(() => this.report(kind, item, path, reason));
    const result = schema.safeParse(raw);
    if (result.success) valid.push(result.data);
    else for (const issue of result.error.issues) add(issue.path, issue.message);
    // Well-formed text, and ids the store keys on without control characters: either would fail
    // the store's write half-way through a sync.
    const malformed = findMalformedText(raw);
    if (malformed) add(malformed, MALFORMED_TEXT_REASON);
    const ids: [PropertyKey[], unknown][] = [[['id'], field(raw, 'id')]];
    const members = kind === 'groups' ? field(raw, 'members') : undefined;
    if (Array.isArray(members)) members.forEach((m: unknown, i) => ids.push([['members', i], m]));
    for (const [path, id] of ids) {
      const problem = typeof id === 'string' && id.trim() !== '' ? identityIdProblem(id) : undefined;
      if (problem) add(path, `not a usable id: ${problem}`);
    }
    return reports;
  }

  private reportClashes(
    kind: Kind,
    entry: LedgerEntry,
    answer: LedgerAnswer,
    nameField: 'userName' | 'displayName',
  ): void {
    if (answer.id) this.report(kind, entry.ref, ['id'], `duplicate of ${itemName(kind, answer.id)}`);
    if (answer.name) {
      const reason = `duplicate of ${itemName(kind, answer.name)} (case-insensitive)`;
      this.report(kind, entry.ref, [nameField], reason);
    }
    if (answer.target) {
      const onTarget = entry.externalId ?? entry.id ?? '';
      const reason = `collides with ${itemName(kind, answer.target)}: both would have externalId ${quote(onTarget)} on the target`;
      this.report(kind, entry.ref, [entry.externalId === undefined ? 'id' : 'externalId'], reason);
    }
  }

  private report(kind: Kind, item: ItemRef, path: ProblemPath, reason: string): void {
    this.problems.addFormatted(() => {
      const line = item.line === undefined ? '' : `line ${item.line}: `;
      return `${line}${formatItemPath(itemHead(kind, item), path)}: ${reason}`;
    });
  }
}

function ref(index: number, origin: ItemOrigin | undefined): ItemRef {
  if (origin === undefined) return { index };
  return {
    index,
    ...(origin.label === undefined ? {} : { label: origin.label }),
    ...(origin.line === undefined ? {} : { line: origin.line }),
  };
}

function ledgerEntry(raw: unknown, item: ItemRef, nameField: string): LedgerEntry {
  const id = textField(raw, 'id');
  const name = textField(raw, nameField)?.toLowerCase();
  const externalId = textField(raw, 'externalId');
  return {
    ref: item,
    ...(id === undefined ? {} : { id }),
    ...(name === undefined ? {} : { name }),
    ...(externalId === undefined ? {} : { externalId }),
  };
}

function field(item: unknown, name: string): unknown {
  return typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[name] : undefined;
}

/** A non-blank string attribute, or undefined: the rules across items look at what is usable. */
function textField(item: unknown, name: string): string | undefined {
  const value = field(item, name);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

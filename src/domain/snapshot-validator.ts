import type { z } from 'zod';
import type { DesiredGroup, DesiredUser, Snapshot } from './identity.js';
import { identityIdProblem } from './platform-rules.js';
import { ProblemList, quote } from './snapshot-problems.js';
import { groupSchema, userSchema } from './snapshot.schema.js';
import { findMalformedText, MALFORMED_TEXT_REASON } from './well-formed-text.js';

/**
 * Validates a snapshot one item at a time (SPEC §5.4), so that a large file can be read item by item
 * and each item's raw form dropped as soon as it is checked. Per item: its shape
 * (snapshot.schema.ts), then the rules across items — unique user ids, unique userNames
 * (case-insensitive), unique group ids and displayNames (case-insensitive), and externalIds that
 * would collide on the target. Members that name no user of the snapshot are checked at the end,
 * when every user is known. Each rule is a Map look-up: linear in the size of the snapshot.
 */

export type Kind = 'users' | 'groups';

export type SnapshotCheck =
  | { ok: true; snapshot: Snapshot }
  | {
      ok: false;
      /** `path: reason` lines, at most 100 and a count line. */ problems: string[];
      total: number;
    };

/** The first index at which each key was seen. */
type Seen = Map<string, number>;

interface KindState {
  count: number;
  ids: Seen;
  names: Seen;
  /** The externalId each item would have on the target, and whether the item gave it itself. */
  onTarget: Map<string, { index: number; given: boolean }>;
}

const newState = (): KindState => ({ count: 0, ids: new Map(), names: new Map(), onTarget: new Map() });

export class SnapshotValidator {
  private readonly problems = new ProblemList();
  private readonly users: DesiredUser[] = [];
  private readonly groups: DesiredGroup[] = [];
  private readonly state: Record<Kind, KindState> = { users: newState(), groups: newState() };
  /** Each group's raw member list, checked against the user ids at the end. */
  private readonly memberLists: { index: number; members: readonly unknown[] }[] = [];

  addUser(raw: unknown): void {
    const index = this.state.users.count++;
    this.parse(raw, index, 'users', userSchema, this.users);
    this.checkText(raw, index, 'users');
    this.checkUnique(raw, index, 'users', 'userName');
  }

  addGroup(raw: unknown): void {
    const index = this.state.groups.count++;
    this.parse(raw, index, 'groups', groupSchema, this.groups);
    this.checkText(raw, index, 'groups');
    this.checkUnique(raw, index, 'groups', 'displayName');
    const members = field(raw, 'members');
    if (Array.isArray(members)) this.memberLists.push({ index, members: members as unknown[] });
  }

  /** A problem of the snapshot's top level, e.g. `users: not an array`. */
  addProblem(path: readonly PropertyKey[], reason: string): void {
    this.problems.add(path, reason);
  }

  finish(): SnapshotCheck {
    const userIds = this.state.users.ids;
    for (const { index, members } of this.memberLists) {
      members.forEach((member, position) => {
        if (typeof member === 'string' && member.trim() !== '' && !userIds.has(member))
          this.problems.add(['groups', index, 'members', position], `unknown user ${quote(member)}`);
      });
    }
    const { total } = this.problems;
    if (total > 0) return { ok: false, problems: this.problems.list(), total };
    return { ok: true, snapshot: { users: this.users, groups: this.groups } };
  }

  private parse<T>(raw: unknown, index: number, kind: Kind, schema: z.ZodType<T>, into: T[]): void {
    const result = schema.safeParse(raw);
    if (result.success) into.push(result.data);
    else
      for (const issue of result.error.issues) this.problems.add([kind, index, ...issue.path], issue.message);
  }

  /**
   * Every string of the item is well-formed Unicode, and the ids the store keys on hold no control
   * character: either would fail the store's write half-way through a sync.
   */
  private checkText(raw: unknown, index: number, kind: Kind): void {
    const malformed = findMalformedText(raw);
    if (malformed) this.problems.add([kind, index, ...malformed], MALFORMED_TEXT_REASON);
    const ids: [PropertyKey[], unknown][] = [[['id'], field(raw, 'id')]];
    const members = kind === 'groups' ? field(raw, 'members') : undefined;
    if (Array.isArray(members)) members.forEach((m: unknown, i) => ids.push([['members', i], m]));
    for (const [path, id] of ids) {
      const problem = typeof id === 'string' && id.trim() !== '' ? identityIdProblem(id) : undefined;
      if (problem) this.problems.add([kind, index, ...path], `not a usable id: ${problem}`);
    }
  }

  private checkUnique(raw: unknown, index: number, kind: Kind, nameField: 'userName' | 'displayName'): void {
    const state = this.state[kind];
    const id = textField(raw, 'id');
    const name = textField(raw, nameField)?.toLowerCase();
    if (id !== undefined) {
      const first = firstOrRecord(state.ids, id, index);
      if (first !== undefined) this.problems.add([kind, index, 'id'], `duplicate of ${kind}[${first}]`);
    }
    if (name !== undefined) {
      const first = firstOrRecord(state.names, name, index);
      if (first !== undefined)
        this.problems.add([kind, index, nameField], `duplicate of ${kind}[${first}] (case-insensitive)`);
    }
    this.checkTargetExternalId(raw, index, kind, id);
  }

  /**
   * Two identities whose externalId on the target would be equal (the externalId given, or else the
   * id: SPEC §5.4) would both adopt the same target identity. Pairs where neither gives an
   * externalId are duplicate ids, reported as such.
   */
  private checkTargetExternalId(raw: unknown, index: number, kind: Kind, id: string | undefined): void {
    const externalId = textField(raw, 'externalId');
    const onTarget = externalId ?? id;
    if (onTarget === undefined) return;
    const given = externalId !== undefined;
    const first = this.state[kind].onTarget.get(onTarget);
    if (first === undefined) {
      this.state[kind].onTarget.set(onTarget, { index, given });
    } else if (given || first.given) {
      const reason = `collides with ${kind}[${first.index}]: both would have externalId ${quote(onTarget)} on the target`;
      this.problems.add([kind, index, given ? 'externalId' : 'id'], reason);
    }
  }
}

function firstOrRecord(seen: Seen, key: string, index: number): number | undefined {
  const first = seen.get(key);
  if (first === undefined) seen.set(key, index);
  return first;
}

function field(item: unknown, name: string): unknown {
  return typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[name] : undefined;
}

/** A non-blank string attribute, or undefined: the rules across items look at what is usable. */
function textField(item: unknown, name: string): string | undefined {
  const value = field(item, name);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

import { logicalOperands, matchesFilter, type FilterNode } from '../../domain/scim-filter.js';
import type { DesiredStateQueries } from '../../store/desired-state.queries.js';
import { memberValues, nestedGroup, type MemberDisplays, type MemberValue } from './group-resource.js';
import type { PatchOperation } from './patch-operation.js';
import { invalid } from './scim-errors.js';

/**
 * Group PATCH operations on `members` (RFC 7644 §3.5.2), folded into one membership change that
 * the store applies atomically — add and remove of ids, never a read-modify-write of the whole
 * list, so two IdP requests changing one large group at once cannot lose each other's members.
 * The forms the IdPs send:
 *  - `add` `members` with `[{"value": id}]` (Entra, Okta);
 *  - `remove` `members[value eq "id"]` (Okta, Entra with aadOptscim062020);
 *  - `remove` `members` with `[{"value": id}]`: only the listed members (Entra's default);
 *  - `remove` `members` without value, or `replace` `members`: the whole list.
 * Members' displays (kept by the bridge, group-resource.ts) follow: an added member's is set, a
 * removed member's dropped.
 */

export interface MembershipPlan {
  /** Set when an operation replaced the whole list: the members the group ends with. */
  replace?: string[];
  add: string[];
  remove: string[];
  /** The member displays as the operations leave them. */
  displays: MemberDisplays;
}

export function isMembersOperation(operation: PatchOperation): boolean {
  return operation.path.attribute.toLowerCase() === 'members';
}

/** Whether a filter is `value eq "a" or value eq "b" …`: its ids, without reading the group. */
function filteredIds(filter: FilterNode): string[] | undefined {
  const ids: string[] = [];
  for (const operand of logicalOperands(filter, 'or')) {
    if (operand.kind !== 'compare' || operand.operator !== 'eq' || typeof operand.value !== 'string')
      return undefined;
    const name = operand.path.attribute.toLowerCase();
    if (name !== 'value' || operand.path.subAttribute !== undefined) return undefined;
    ids.push(operand.value);
  }
  return ids;
}

/** Whether planning needs the group's current members (a filter other than value equalities). */
export function needsCurrentMembers(operations: readonly PatchOperation[]): boolean {
  return operations.some((operation) => {
    const filter = operation.path.valueFilter;
    return filter !== undefined && filteredIds(filter) === undefined;
  });
}

class Membership {
  private base: Set<string> | undefined;
  private readonly added = new Set<string>();
  private readonly removed = new Set<string>();
  private readonly displays: Map<string, string>;

  constructor(
    private readonly current: readonly string[] | undefined,
    displays: MemberDisplays,
  ) {
    this.displays = new Map(displays);
  }

  add(members: readonly MemberValue[]): void {
    for (const { id, display } of members) {
      if (display !== undefined) this.displays.set(id, display);
      if (this.base) this.base.add(id);
      else {
        this.added.add(id);
        this.removed.delete(id);
      }
    }
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) {
      this.displays.delete(id);
      if (this.base) this.base.delete(id);
      else {
        this.removed.add(id);
        this.added.delete(id);
      }
    }
  }

  replace(members: readonly MemberValue[]): void {
    this.base = new Set();
    this.added.clear();
    this.removed.clear();
    this.displays.clear();
    this.add(members);
  }

  /** The members as the operations so far leave them (needs the current members unless replaced). */
  effective(): string[] {
    if (this.base) return [...this.base];
    const out = new Set(this.current ?? []);
    for (const id of this.added) out.add(id);
    for (const id of this.removed) out.delete(id);
    return [...out];
  }

  plan(): MembershipPlan {
    const displays = this.displays;
    if (this.base) return { replace: [...this.base], add: [], remove: [], displays };
    return { add: [...this.added], remove: [...this.removed], displays };
  }
}

export function planMembership(
  operations: readonly PatchOperation[],
  current: readonly string[] | undefined,
  displays: MemberDisplays = new Map(),
): MembershipPlan {
  const membership = new Membership(current, displays);
  for (const operation of operations) foldOperation(membership, operation);
  return membership.plan();
}

function foldOperation(membership: Membership, operation: PatchOperation): void {
  const context = `Operation ${operation.index} (${operation.op} "${operation.pathText}")`;
  if (operation.path.subAttribute !== undefined) {
    throw invalid(
      'invalidPath',
      `${context}: members are changed as whole values, e.g. members[value eq "…"]`,
    );
  }
  const filter = operation.path.valueFilter;
  const clears = operation.op === 'remove' || operation.value === null;
  if (filter) {
    const selected =
      filteredIds(filter) ??
      membership.effective().filter((id) => matchesFilter(filter, { value: id, type: 'User' }));
    if (operation.op !== 'add') membership.remove(selected);
    if (!clears) membership.add(memberValues(operation.value, context) ?? []);
  } else if (clears) {
    if (operation.op === 'remove' && operation.value !== undefined && operation.value !== null) {
      const removed = memberValues(operation.value, context) ?? [];
      membership.remove(removed.map((member) => member.id));
    } else {
      membership.replace([]);
    }
  } else if (operation.op === 'add') {
    membership.add(memberValues(operation.value, context) ?? []);
  } else {
    membership.replace(memberValues(operation.value, context) ?? []);
  }
}

/** Ids placed (ZMSCORE) at a time. */
const CHUNK = 500;

/**
 * Refuses members that are groups (400 invalidValue naming the member): the platform has no nested
 * groups. An id that a group holds and no user does is a group's; an id the bridge does not hold
 * yet is taken as a user still to come, as the other inputs' memberships are.
 */
export async function refuseNestedGroups(
  queries: DesiredStateQueries,
  ids: readonly string[],
  context: string,
): Promise<void> {
  for (let start = 0; start < ids.length; start += CHUNK) {
    const groups = await queries.positions('group', ids.slice(start, start + CHUNK));
    if (groups.size === 0) continue;
    const users = await queries.positions('user', [...groups.keys()]);
    const nested = [...groups.keys()].find((id) => !users.has(id));
    if (nested !== undefined) throw nestedGroup(context, nested);
  }
}

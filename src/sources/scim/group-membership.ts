import { matchesFilter, type FilterNode } from '../../domain/scim-filter.js';
import { memberIds } from './group-resource.js';
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
 */

export interface MembershipPlan {
  /** Set when an operation replaced the whole list: the members the group ends with. */
  replace?: string[];
  add: string[];
  remove: string[];
}

export function isMembersOperation(operation: PatchOperation): boolean {
  return operation.path.attribute.toLowerCase() === 'members';
}

/** Whether a filter is `value eq "a" or value eq "b" …`: its ids, without reading the group. */
function filteredIds(filter: FilterNode): string[] | undefined {
  if (filter.kind === 'or') {
    const left = filteredIds(filter.left);
    const right = filteredIds(filter.right);
    return left && right ? [...left, ...right] : undefined;
  }
  if (filter.kind !== 'compare' || filter.operator !== 'eq' || typeof filter.value !== 'string')
    return undefined;
  const name = filter.path.attribute.toLowerCase();
  return name === 'value' && filter.path.subAttribute === undefined ? [filter.value] : undefined;
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

  constructor(private readonly current: readonly string[] | undefined) {}

  add(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.base) this.base.add(id);
      else {
        this.added.add(id);
        this.removed.delete(id);
      }
    }
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.base) this.base.delete(id);
      else {
        this.removed.add(id);
        this.added.delete(id);
      }
    }
  }

  replace(ids: readonly string[]): void {
    this.base = new Set(ids);
    this.added.clear();
    this.removed.clear();
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
    if (this.base) return { replace: [...this.base], add: [], remove: [] };
    return { add: [...this.added], remove: [...this.removed] };
  }
}

export function planMembership(
  operations: readonly PatchOperation[],
  current: readonly string[] | undefined,
): MembershipPlan {
  const membership = new Membership(current);
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
    if (!clears) membership.add(memberIds(operation.value, context) ?? []);
  } else if (clears) {
    if (operation.op === 'remove' && operation.value !== undefined && operation.value !== null) {
      membership.remove(memberIds(operation.value, context) ?? []);
    } else {
      membership.replace([]);
    }
  } else if (operation.op === 'add') {
    membership.add(memberIds(operation.value, context) ?? []);
  } else {
    membership.replace(memberIds(operation.value, context) ?? []);
  }
}

import { platformExternalId, type DesiredGroup } from './identity.js';
import type { PatchOperation } from './scim-patch.js';
import { formatFilterString } from './scim-filter.js';

export interface ObservedGroup {
  id: string;
  displayName: string;
  externalId?: string | null;
  members?: readonly { value: string }[] | null;
}

export type GroupAttribute = 'displayName' | 'externalId' | 'members';

/**
 * The version of the rules diffGroup compares displayName and externalId by. A full sync records a
 * group it found matching by the digest of its desired state and its account (as users: see
 * USER_COMPARISON_VERSION) and counts it unchanged while both stay the same and its members still
 * resolve to the account's members (store/lua/sync-clean.lua.ts, CLEAN_GROUPS): bump this when
 * the rules change.
 */
export const GROUP_COMPARISON_VERSION = 1;

export interface GroupDiff {
  attributes: GroupAttribute[];
  /** PATCH operations in requests of bounded size (the first holds the attribute changes). */
  requests: PatchOperation[][];
  added: string[];
  removed: string[];
}

/** Operations per PATCH request and member values per add, so no request body grows unbounded. */
export const PATCH_LIMITS = { operationsPerRequest: 100, membersPerAdd: 500 } as const;

/** The body of a POST or PUT for the desired group, members given as target user ids. */
export function groupBody(group: DesiredGroup, memberTargetIds: readonly string[]): Record<string, unknown> {
  return {
    displayName: group.displayName,
    externalId: platformExternalId(group),
    members: memberTargetIds.map((value) => ({ value })),
  };
}

/**
 * The difference between the desired group (members as target user ids) and the target's group.
 * Members are added with one `add` and removed with `remove` at `members[value eq "…"]` each — not
 * with Entra's remove-with-value form, which a strict platform rejects (RFC 7644 §3.5.2.2).
 */
export function diffGroup(
  desired: DesiredGroup,
  memberTargetIds: readonly string[],
  observed: ObservedGroup,
): GroupDiff {
  const attributes: GroupAttribute[] = [];
  const first: PatchOperation[] = [];
  if (observed.displayName !== desired.displayName) {
    attributes.push('displayName');
    first.push({ op: 'replace', path: 'displayName', value: desired.displayName });
  }
  if ((observed.externalId ?? undefined) !== platformExternalId(desired)) {
    attributes.push('externalId');
    first.push({ op: 'replace', path: 'externalId', value: platformExternalId(desired) });
  }
  const have = new Set((observed.members ?? []).map((m) => m.value));
  const want = new Set(memberTargetIds);
  const added = [...want].filter((id) => !have.has(id));
  const removed = [...have].filter((id) => !want.has(id));
  if (added.length > 0 || removed.length > 0) attributes.push('members');
  const operations = [...first, ...memberOperations(added, removed)];
  return { attributes, requests: chunk(operations, PATCH_LIMITS.operationsPerRequest), added, removed };
}

function memberOperations(added: readonly string[], removed: readonly string[]): PatchOperation[] {
  const operations: PatchOperation[] = [];
  for (const values of chunk(added, PATCH_LIMITS.membersPerAdd)) {
    operations.push({ op: 'add', path: 'members', value: values.map((value) => ({ value })) });
  }
  for (const value of removed) {
    operations.push({ op: 'remove', path: `members[value eq ${formatFilterString(value)}]` });
  }
  return operations;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

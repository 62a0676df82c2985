import { diffGroup, groupBody, type ObservedGroup } from '../domain/group-diff.js';
import type { DesiredGroup, DesiredUser } from '../domain/identity.js';
import { diffUser, userBody, type ObservedUser } from '../domain/user-diff.js';
import type { IdentityNameQueries } from '../store/identity-names.queries.js';
import type { AttributeRow, MemberRow, PlatformCopy } from './schemas/platform-copy.schema.js';
import { redact } from './views.js';

/**
 * The desired state beside the platform's copy, attribute by attribute, for the attributes the
 * bridge manages (SPEC §6). `differs` is what the reconciler would change: the same comparison
 * (domain/user-diff.ts, domain/group-diff.ts), so e-mails compare case-insensitively (RFC 7643
 * §4.1.2) and an unassigned `active` matches whatever the platform holds.
 */

/** Member rows shown at most; the counts stay exact. */
const MEMBER_ROWS = 500;

const USER_ATTRIBUTES = ['userName', 'externalId', 'active', 'name', 'emails'] as const;
const GROUP_ATTRIBUTES = ['displayName', 'externalId'] as const;

export function compareUser(desired: DesiredUser | undefined, resource: Record<string, unknown>) {
  const expected = desired ? userBody(desired) : undefined;
  const differences = desired ? diffUser(desired, resource as unknown as ObservedUser).attributes : [];
  const attributes = attributeRows(USER_ATTRIBUTES, expected, resource, differences);
  return { attributes, differences: differences as string[] };
}

/** Each attribute's value on both sides (null when absent), and whether the next run changes it. */
function attributeRows(
  names: readonly string[],
  expected: Record<string, unknown> | undefined,
  resource: Record<string, unknown>,
  differences: readonly string[],
): AttributeRow[] {
  return names.map((attribute) => ({
    attribute,
    desired: expected ? redact(expected[attribute] ?? null) : null,
    platform: redact(resource[attribute] ?? null),
    differs: differences.includes(attribute),
  }));
}

/**
 * A group's attributes and its members on both sides. Desired members are source ids; the platform
 * lists platform ids: each side is mapped to the other through the ids the bridge recorded, and a
 * desired member the platform cannot hold yet (not created there) counts as missing.
 */
export async function compareGroup(
  desired: DesiredGroup | undefined,
  resource: Record<string, unknown>,
  names: IdentityNameQueries,
) {
  const platformMembers = membersOf(resource);
  const wanted = desired?.members ?? [];
  const [userNames, targetIds, sourceIds] = await Promise.all([
    names.names('user', wanted),
    names.targetIds('user', wanted),
    names.sourceIds(
      'user',
      platformMembers.map((m) => m.value),
    ),
  ]);
  const platformNames = await names.names('user', [...sourceIds.values()]);
  // Members not desired as users are left out, as the reconciler does.
  const desiredMembers = wanted.filter((id) => userNames.has(id));
  const memberTargetIds = desiredMembers.map((id) => targetIds.get(id) ?? `pending:${id}`);
  const observed = { ...resource, members: platformMembers } as unknown as ObservedGroup;
  const differences = desired ? (diffGroup(desired, memberTargetIds, observed).attributes as string[]) : [];
  const expected = desired ? groupBody(desired, []) : undefined;
  const attributes = attributeRows(GROUP_ATTRIBUTES, expected, resource, differences);
  const rows = memberRows(desiredMembers, platformMembers, {
    targetIds,
    sourceIds,
    names: new Map([...platformNames, ...userNames]),
  });
  return { attributes, differences, members: rows };
}

interface MemberLookups {
  targetIds: ReadonlyMap<string, string>;
  sourceIds: ReadonlyMap<string, string>;
  names: ReadonlyMap<string, string>;
}

function memberRows(
  desiredMembers: readonly string[],
  platformMembers: readonly { value: string; display?: string }[],
  lookups: MemberLookups,
) {
  const byTarget = new Map<string, MemberRow>();
  const rows: MemberRow[] = [];
  for (const id of desiredMembers) {
    const targetId = lookups.targetIds.get(id) ?? null;
    const row = { id, targetId, userName: lookups.names.get(id) ?? null, desired: true, platform: false };
    rows.push(row);
    if (targetId) byTarget.set(targetId, row);
  }
  for (const member of platformMembers) {
    const known = byTarget.get(member.value);
    if (known) {
      known.platform = true;
      continue;
    }
    const id = lookups.sourceIds.get(member.value) ?? null;
    const userName = (id ? lookups.names.get(id) : undefined) ?? member.display ?? null;
    rows.push({ id, targetId: member.value, userName, desired: false, platform: true });
  }
  // What differs first, then by name: the rows an operator came for are on top.
  const label = (r: MemberRow) => (r.userName ?? r.id ?? r.targetId ?? '').toLowerCase();
  rows.sort(
    (a, b) =>
      Number(a.desired === a.platform) - Number(b.desired === b.platform) ||
      (label(a) < label(b) ? -1 : label(a) > label(b) ? 1 : 0),
  );
  return {
    desired: desiredMembers.length,
    platform: platformMembers.length,
    missing: rows.filter((r) => r.desired && !r.platform).length,
    extra: rows.filter((r) => r.platform && !r.desired).length,
    rows: rows.slice(0, MEMBER_ROWS),
    rowsOmitted: Math.max(0, rows.length - MEMBER_ROWS),
  };
}

function membersOf(resource: Record<string, unknown>): { value: string; display?: string }[] {
  const members = Array.isArray(resource.members) ? (resource.members as unknown[]) : [];
  return members.flatMap((m) => {
    const member = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
    if (typeof member.value !== 'string') return [];
    return [
      { value: member.value, ...(typeof member.display === 'string' ? { display: member.display } : {}) },
    ];
  });
}

/** The platform's copy as shown whole: its members are in the member rows, not repeated here. */
export function shownResource(resource: Record<string, unknown>): PlatformCopy['resource'] {
  const { members: _members, ...rest } = resource;
  return redact(rest) as Record<string, unknown>;
}

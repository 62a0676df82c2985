import type { DesiredGroup } from '../../domain/identity.js';
import type { StoredGroup } from '../../store/desired-state.queries.js';
import { isPossibleId } from './resource-id.js';
import { meta } from './resource-rules.js';
import { invalid } from './scim-errors.js';
import { isObject, type JsonObject } from './scim-json.js';
import { GROUP_SCHEMA } from './scim-schema.js';

/**
 * A SCIM Group (RFC 7643 §4.2): displayName, externalId and members, all managed on the target.
 * Members are user ids (the bridge's ids): the platform has no nested groups, so a member that is a
 * group is refused. A member's `display` (RFC 7643 §4.2) is not managed on the platform: the group's
 * extra part keeps it as `members: [{value, display}]`, and answers put it back on the member.
 */

/** One value of `members` as a client sends it. */
export interface MemberValue {
  id: string;
  display?: string;
}

/** Member id → the `display` it was given with. */
export type MemberDisplays = ReadonlyMap<string, string>;

export function groupToScim(stored: StoredGroup, base: string): JsonObject {
  const { group } = stored;
  const out: JsonObject = { schemas: [GROUP_SCHEMA], id: group.id };
  if (group.externalId !== undefined) out.externalId = group.externalId;
  out.displayName = group.displayName;
  if (stored.members && stored.members.length > 0) {
    const displays = memberDisplays(stored.extra);
    out.members = stored.members.map((id) => {
      const display = displays.get(id);
      return {
        value: id,
        ...(display === undefined ? {} : { display }),
        $ref: `${base}/Users/${id}`,
        type: 'User',
      };
    });
  }
  out.meta = meta('Group', stored, `${base}/Groups/${group.id}`);
  return out;
}

/** The group's own attributes from a checked resource; `keptExternalId` when a PUT does not assert it. */
export function groupFromScim(
  id: string,
  resource: JsonObject,
  keptExternalId?: string,
): Omit<DesiredGroup, 'members'> {
  const displayName = resource.displayName;
  if (typeof displayName !== 'string' || displayName.trim() === '') {
    throw invalid('invalidValue', 'displayName is required and must not be empty (RFC 7643 §4.2)');
  }
  const externalId = typeof resource.externalId === 'string' ? resource.externalId : keptExternalId;
  return { id, displayName, ...(externalId === undefined ? {} : { externalId }) };
}

/**
 * The members of a `members` value (each `{"value": id}`, with `display` and `type` optional);
 * undefined when the attribute is absent. A value that is no possible id is a 400 naming it. `type`
 * is a label (RFC 7643 §4.2, §8.7.1: the client may send it, the server answers with the real
 * one): what a member is, user or group, is what its value is in the store (refuseNestedGroups,
 * group-membership.ts); answers always say `User`.
 */
export function memberValues(value: unknown, context: string): MemberValue[] | undefined {
  if (value === undefined) return undefined;
  if (value === null) return [];
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  const members = new Map<string, MemberValue>();
  for (const [index, item] of items.entries()) {
    if (!isObject(item) || typeof item.value !== 'string' || item.value === '') {
      throw invalid('invalidValue', `${context}: members[${index}] needs a "value" holding a user id`);
    }
    const id = item.value;
    if (!isPossibleId(id)) {
      throw invalid(
        'invalidValue',
        `${context}: members[${index}].value is not a user id the bridge can hold`,
      );
    }
    members.set(id, { id, ...(typeof item.display === 'string' ? { display: item.display } : {}) });
  }
  return [...members.values()];
}

/** The user ids of a `members` value; undefined when the attribute is absent. */
export function memberIds(value: unknown, context: string): string[] | undefined {
  return memberValues(value, context)?.map((member) => member.id);
}

/** RFC 7644 §3.12 invalidValue: the platform's groups hold users only (README, "Identity providers"). */
export function nestedGroup(context: string, id: string): Error {
  return invalid(
    'invalidValue',
    `${context}: member ${JSON.stringify(id)} is a group; nested groups are not supported by the platform (a group's members are users)`,
  );
}

/** The member displays a group's extra part keeps. */
export function memberDisplays(extra: JsonObject | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const members = extra?.members;
  if (!Array.isArray(members)) return out;
  for (const item of members as unknown[]) {
    if (isObject(item) && typeof item.value === 'string' && typeof item.display === 'string') {
      out.set(item.value, item.display);
    }
  }
  return out;
}

/** The extra part that keeps `displays`, or null (which clears it) when there are none. */
export function displaysExtra(displays: MemberDisplays): JsonObject | null {
  if (displays.size === 0) return null;
  return { members: [...displays].map(([value, display]) => ({ value, display })) };
}

/** The displays of members given with one. */
export function displaysOf(members: readonly MemberValue[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const member of members) if (member.display !== undefined) out.set(member.id, member.display);
  return out;
}

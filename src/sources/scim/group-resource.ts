import type { DesiredGroup } from '../../domain/identity.js';
import type { StoredGroup } from '../../store/desired-state.queries.js';
import { invalid } from './scim-errors.js';
import { isObject, type JsonObject } from './scim-json.js';
import { GROUP_SCHEMA } from './scim-schema.js';
import { meta } from './user-resource.js';

/**
 * A SCIM Group (RFC 7643 §4.2): displayName, externalId and members, all managed on the target.
 * Members are user ids (the bridge's ids).
 */

export function groupToScim(stored: StoredGroup, base: string): JsonObject {
  const { group } = stored;
  const out: JsonObject = { schemas: [GROUP_SCHEMA], id: group.id };
  if (group.externalId !== undefined) out.externalId = group.externalId;
  out.displayName = group.displayName;
  if (stored.members && stored.members.length > 0) {
    out.members = stored.members.map((id) => ({ value: id, $ref: `${base}/Users/${id}`, type: 'User' }));
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

/** The user ids of a `members` value (each `{"value": id}`); undefined when the attribute is absent. */
export function memberIds(value: unknown, context: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === null) return [];
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  const ids: string[] = [];
  for (const [index, item] of items.entries()) {
    if (!isObject(item) || typeof item.value !== 'string' || item.value === '') {
      throw invalid('invalidValue', `${context}: members[${index}] needs a "value" holding a user id`);
    }
    ids.push(item.value);
  }
  return [...new Set(ids)];
}

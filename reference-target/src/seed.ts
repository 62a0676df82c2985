import { getAttribute } from './attribute-lookup.js';
import type { ResourceStore } from './resource-store.js';
import { readGroup, readUser } from './resource-validation.js';
import { badRequest, isScimError, ScimError } from './target-errors.js';

/**
 * Bulk insert for benchmarks that run the target in another process (`POST /__control/seed`).
 * Users are inserted first, in order, then groups. A user may carry its own `id`. A group's
 * `members` are either strings — each the `externalId` of exactly one user — or SCIM member
 * objects `{"value": "<user id>"}`. Inserting stops at the first invalid item; the items before it
 * stay, and the error names the item.
 */

export interface SeedCounts {
  users: number;
  groups: number;
}

const DIRECT = { requireSchemas: false };

export function seedTarget(
  store: ResourceStore,
  users: readonly unknown[],
  groups: readonly unknown[],
): SeedCounts {
  users.forEach((user, index) =>
    at(`users[${index}]`, () => store.createUser(readUser(user, DIRECT), ownId(user))),
  );
  groups.forEach((group, index) =>
    at(`groups[${index}]`, () => {
      const members = resolveMembers(store, getAttribute(group, 'members'));
      const body = typeof group === 'object' && group !== null ? { ...group, members } : group;
      store.createGroup(readGroup(body, DIRECT), ownId(group));
    }),
  );
  return { users: users.length, groups: groups.length };
}

function ownId(item: unknown): string | undefined {
  const id = getAttribute(item, 'id');
  return typeof id === 'string' ? id : undefined;
}

function resolveMembers(store: ResourceStore, members: unknown): unknown {
  if (!Array.isArray(members)) return members;
  return members.map((member: unknown) => {
    if (typeof member !== 'string') return member;
    const found = store.findUsersByExternalId(member);
    const [user] = found;
    if (found.length !== 1 || user === undefined) {
      const detail = `member ${JSON.stringify(member)} is the externalId of ${found.length} users, not exactly one`;
      throw badRequest('invalidValue', detail);
    }
    return { value: user.id };
  });
}

function at(label: string, insert: () => void): void {
  try {
    insert();
  } catch (error) {
    if (!isScimError(error)) throw error;
    throw new ScimError(error.status, `${label}: ${error.detail}`, {
      scimType: error.scimType,
      cause: error,
    });
  }
}

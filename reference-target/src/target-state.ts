import { groupAttributes, userAttributes, type ResourceStore } from './resource-store.js';
import { readGroup, readUser } from './resource-validation.js';
import { notFound } from './target-errors.js';
import type { ScimEmail, ScimGroup, ScimName, ScimUser } from './scim-types.js';

/**
 * Direct access to the target's state for tests, seeding and out-of-band edits: no HTTP, not
 * recorded, never faulted. Inputs are checked by the same rules as HTTP bodies (without requiring
 * `schemas`), so invalid or duplicate data throws ScimError just as the API would answer 400/409.
 * Returned resources are frozen; they are the stored objects themselves.
 */

export interface UserInput {
  /** Chosen by the caller when given (any string without "/"); a UUID otherwise. */
  id?: string;
  externalId?: string;
  userName: string;
  name?: ScimName;
  displayName?: string;
  emails?: ScimEmail[];
  active?: boolean;
}

export interface GroupInput {
  id?: string;
  externalId?: string;
  displayName: string;
  /** Ids of existing users. */
  members?: { value: string }[];
}

export interface TargetState {
  users(): ScimUser[];
  groups(): ScimGroup[];
  getUser(id: string): ScimUser | undefined;
  getGroup(id: string): ScimGroup | undefined;
  findUserByUserName(userName: string): ScimUser | undefined;
  findGroupByDisplayName(displayName: string): ScimGroup | undefined;
  insertUser(user: UserInput): ScimUser;
  insertGroup(group: GroupInput): ScimGroup;
  /** Changes the given attributes; an attribute given as undefined is removed. */
  updateUser(id: string, change: Partial<Omit<UserInput, 'id'>>): ScimUser;
  updateGroup(id: string, change: Partial<Omit<GroupInput, 'id'>>): ScimGroup;
  deleteUser(id: string): void;
  deleteGroup(id: string): void;
  clear(): void;
}

const DIRECT = { requireSchemas: false };

export function createTargetState(store: ResourceStore): TargetState {
  return {
    users: () => store.users(),
    groups: () => store.groups(),
    getUser: (id) => store.getUser(id),
    getGroup: (id) => store.getGroup(id),
    findUserByUserName: (userName) => store.findUserByUserName(userName),
    findGroupByDisplayName: (displayName) => store.findGroupByDisplayName(displayName),
    insertUser: (user) => store.createUser(readUser(user, DIRECT), user.id),
    insertGroup: (group) => store.createGroup(readGroup(group, DIRECT), group.id),
    updateUser: (id, change) => {
      const current = store.getUser(id);
      if (current === undefined) throw notFound(id);
      return store.replaceUser(id, readUser({ ...userAttributes(current), ...change }, DIRECT));
    },
    updateGroup: (id, change) => {
      const current = store.getGroup(id);
      if (current === undefined) throw notFound(id);
      const members = current.members.map(({ value }) => ({ value }));
      return store.replaceGroup(id, readGroup({ ...groupAttributes(current), members, ...change }, DIRECT));
    },
    deleteUser: (id) => store.deleteUser(id),
    deleteGroup: (id) => store.deleteGroup(id),
    clear: () => store.clear(),
  };
}

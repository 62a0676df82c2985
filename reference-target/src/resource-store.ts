import { randomUUID } from 'node:crypto';
import { queryTable, type IndexLookup, type QueryResult } from './indexed-query.js';
import { caseExactRule, GROUP_RESOURCE_SCHEMA, USER_RESOURCE_SCHEMA } from './resource-schemas.js';
import { compact } from './compact.js';
import { ResourceTable, ValueIndex } from './resource-table.js';
import { badRequest, notFound, uniquenessConflict } from './target-errors.js';
import type { TargetFilter } from './target-filter.js';
import {
  GROUP_SCHEMA,
  USER_SCHEMA,
  type GroupAttributes,
  type ResourceType,
  type ScimGroup,
  type ScimMeta,
  type ScimUser,
  type UserAttributes,
} from './scim-types.js';

/**
 * The platform's users and groups, in memory. Integrity rules live here: `userName` and group
 * `displayName` unique case-insensitively (409 uniqueness), members must be existing users, a
 * deleted user leaves every group, a member's `display` follows its user's `userName`. Indexes:
 * id, lower-cased userName, externalId (case-exact, not unique), lower-cased displayName, and
 * user id → ids of the groups that hold it.
 */

export interface ListQuery {
  filter?: TargetFilter;
  /** Zero-based. */
  offset: number;
  count: number;
}

const userCaseExact = caseExactRule(USER_RESOURCE_SCHEMA);
const groupCaseExact = caseExactRule(GROUP_RESOURCE_SCHEMA);

export class ResourceStore {
  private readonly userTable = new ResourceTable<ScimUser>();
  private readonly groupTable = new ResourceTable<ScimGroup>();
  private readonly userNames = new ValueIndex();
  private readonly userExternalIds = new ValueIndex();
  private readonly groupNames = new ValueIndex();
  private readonly groupExternalIds = new ValueIndex();
  private readonly memberships = new ValueIndex();

  /** `scimBase()` is the SCIM base URL that `meta.location` starts with. */
  constructor(private readonly scimBase: () => string) {}

  getUser(id: string): ScimUser | undefined {
    return this.userTable.get(id);
  }

  getGroup(id: string): ScimGroup | undefined {
    return this.groupTable.get(id);
  }

  users(): ScimUser[] {
    return this.userTable.all();
  }

  groups(): ScimGroup[] {
    return this.groupTable.all();
  }

  counts(): { users: number; groups: number } {
    return { users: this.userTable.size, groups: this.groupTable.size };
  }

  findUserByUserName(userName: string): ScimUser | undefined {
    const [id] = this.userNames.get(userName.toLowerCase());
    return id === undefined ? undefined : this.userTable.get(id);
  }

  findUsersByExternalId(externalId: string): ScimUser[] {
    return this.userTable.inOrder(this.userExternalIds.get(externalId));
  }

  findGroupByDisplayName(displayName: string): ScimGroup | undefined {
    const [id] = this.groupNames.get(displayName.toLowerCase());
    return id === undefined ? undefined : this.groupTable.get(id);
  }

  listUsers(query: ListQuery): QueryResult<ScimUser> {
    return queryTable(this.userTable, query, this.userLookup, { caseExact: userCaseExact });
  }

  listGroups(query: ListQuery): QueryResult<ScimGroup> {
    return queryTable(this.groupTable, query, this.groupLookup, { caseExact: groupCaseExact });
  }

  createUser(attributes: UserAttributes, id: string = randomUUID()): ScimUser {
    this.checkNewId(id, this.userTable.get(id) !== undefined);
    this.checkUserName(attributes.userName, id);
    const now = timestamp();
    const user = freeze({ schemas: [USER_SCHEMA], id, ...attributes, meta: this.meta('User', id, now, now) });
    this.userTable.insert(user);
    this.indexUser(user);
    return user;
  }

  replaceUser(id: string, attributes: UserAttributes): ScimUser {
    const existing = this.userTable.get(id);
    if (existing === undefined) throw notFound(id);
    this.checkUserName(attributes.userName, id);
    const { schemas, meta, ...before } = existing;
    if (sameJson(before, { id, ...attributes })) return existing;
    const user = freeze({ schemas, id, ...attributes, meta: { ...meta, lastModified: timestamp() } });
    this.unindexUser(existing);
    this.userTable.replace(user);
    this.indexUser(user);
    if (user.userName !== existing.userName) this.renameMember(id, user.userName);
    return user;
  }

  deleteUser(id: string): void {
    const user = this.userTable.delete(id);
    if (user === undefined) throw notFound(id);
    this.unindexUser(user);
    for (const groupId of [...this.memberships.get(id)]) {
      const group = this.groupTable.get(groupId);
      if (group === undefined) continue;
      const members = group.members.map((member) => member.value).filter((value) => value !== id);
      this.replaceGroup(groupId, { ...groupAttributes(group), members });
    }
  }

  createGroup(attributes: GroupAttributes, id: string = randomUUID()): ScimGroup {
    this.checkNewId(id, this.groupTable.get(id) !== undefined);
    this.checkDisplayName(attributes.displayName, id);
    const now = timestamp();
    const group = freeze(this.buildGroup(id, attributes, this.meta('Group', id, now, now)));
    this.groupTable.insert(group);
    this.indexGroup(group);
    return group;
  }

  replaceGroup(id: string, attributes: GroupAttributes): ScimGroup {
    const existing = this.groupTable.get(id);
    if (existing === undefined) throw notFound(id);
    this.checkDisplayName(attributes.displayName, id);
    if (sameJson(groupAttributes(existing), attributes)) return existing;
    const group = freeze(this.buildGroup(id, attributes, { ...existing.meta, lastModified: timestamp() }));
    this.unindexGroup(existing);
    this.groupTable.replace(group);
    this.indexGroup(group);
    return group;
  }

  deleteGroup(id: string): void {
    const group = this.groupTable.delete(id);
    if (group === undefined) throw notFound(id);
    this.unindexGroup(group);
  }

  clear(): void {
    this.userTable.clear();
    this.groupTable.clear();
    for (const index of [
      this.userNames,
      this.userExternalIds,
      this.groupNames,
      this.groupExternalIds,
      this.memberships,
    ]) {
      index.clear();
    }
  }

  private readonly userLookup: IndexLookup = (attribute, value) => {
    if (attribute === 'id') return new Set(this.userTable.get(value) === undefined ? [] : [value]);
    if (attribute === 'username') return this.userNames.get(value.toLowerCase());
    if (attribute === 'externalid') return this.userExternalIds.get(value);
    return undefined;
  };

  private readonly groupLookup: IndexLookup = (attribute, value) => {
    if (attribute === 'id') return new Set(this.groupTable.get(value) === undefined ? [] : [value]);
    if (attribute === 'displayname') return this.groupNames.get(value.toLowerCase());
    if (attribute === 'externalid') return this.groupExternalIds.get(value);
    if (attribute === 'members.value') return this.memberships.get(value);
    return undefined;
  };

  private buildGroup(id: string, attributes: GroupAttributes, meta: ScimMeta): ScimGroup {
    const unknown = attributes.members.filter((member) => this.userTable.get(member) === undefined);
    if (unknown.length > 0) {
      const list = unknown.map((value) => JSON.stringify(value)).join(', ');
      throw badRequest(
        'invalidValue',
        `members: ${list} ${unknown.length === 1 ? 'is not the id of an existing user' : 'are not ids of existing users'}`,
      );
    }
    const members = attributes.members.map((value) => ({
      value,
      display: this.userTable.get(value)?.userName ?? '',
    }));
    const { externalId, displayName } = attributes;
    return compact({ schemas: [GROUP_SCHEMA], id, externalId, displayName, members, meta });
  }

  private renameMember(userId: string, userName: string): void {
    for (const groupId of this.memberships.get(userId)) {
      const group = this.groupTable.get(groupId);
      if (group === undefined) continue;
      const members = group.members.map((member) =>
        member.value === userId ? { value: userId, display: userName } : member,
      );
      this.groupTable.replace(freeze({ ...group, members }));
    }
  }

  private checkNewId(id: string, taken: boolean): void {
    if (id === '' || id.includes('/'))
      throw badRequest('invalidValue', `id ${JSON.stringify(id)} is not a usable id`);
    if (taken) throw uniquenessConflict(`id ${JSON.stringify(id)} is already in use`);
  }

  private checkUserName(userName: string, id: string): void {
    for (const other of this.userNames.get(userName.toLowerCase())) {
      if (other !== id) throw uniquenessConflict(`userName ${JSON.stringify(userName)} is already in use`);
    }
  }

  private checkDisplayName(displayName: string, id: string): void {
    for (const other of this.groupNames.get(displayName.toLowerCase())) {
      if (other !== id)
        throw uniquenessConflict(`displayName ${JSON.stringify(displayName)} is already in use`);
    }
  }

  private indexUser(user: ScimUser): void {
    this.userNames.add(user.userName.toLowerCase(), user.id);
    this.userExternalIds.add(user.externalId, user.id);
  }

  private unindexUser(user: ScimUser): void {
    this.userNames.remove(user.userName.toLowerCase(), user.id);
    this.userExternalIds.remove(user.externalId, user.id);
  }

  private indexGroup(group: ScimGroup): void {
    this.groupNames.add(group.displayName.toLowerCase(), group.id);
    this.groupExternalIds.add(group.externalId, group.id);
    for (const member of group.members) this.memberships.add(member.value, group.id);
  }

  private unindexGroup(group: ScimGroup): void {
    this.groupNames.remove(group.displayName.toLowerCase(), group.id);
    this.groupExternalIds.remove(group.externalId, group.id);
    for (const member of group.members) this.memberships.remove(member.value, group.id);
  }

  private meta(resourceType: ResourceType, id: string, created: string, lastModified: string): ScimMeta {
    const collection = resourceType === 'User' ? 'Users' : 'Groups';
    return { resourceType, created, lastModified, location: `${this.scimBase()}/${collection}/${id}` };
  }
}

export function groupAttributes(group: ScimGroup): GroupAttributes {
  const { externalId, displayName, members } = group;
  return compact({ externalId, displayName, members: members.map((member) => member.value) });
}

export function userAttributes(user: ScimUser): UserAttributes {
  const { schemas: _schemas, id: _id, meta: _meta, ...attributes } = user;
  return attributes;
}

let lastTime = 0;
let lastTimestamp = '';

/** ISO 8601 date-time of now; bulk inserts within one millisecond share the string. */
function timestamp(): string {
  const now = Date.now();
  if (now !== lastTime) {
    lastTime = now;
    lastTimestamp = new Date(now).toISOString();
  }
  return lastTimestamp;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Stored resources are immutable: readers share them, writers replace them. */
function freeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) for (const item of value as unknown[]) freeze(item);
  else for (const key in value) freeze(value[key]);
  return Object.freeze(value);
}

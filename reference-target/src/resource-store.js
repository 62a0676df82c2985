import { randomUUID } from 'node:crypto';
import { queryTable } from './indexed-query.js';
import { caseExactRule, GROUP_RESOURCE_SCHEMA, USER_RESOURCE_SCHEMA } from './resource-schemas.js';
import { compact } from './compact.js';
import { ResourceTable, ValueIndex } from './resource-table.js';
import { badRequest, notFound, uniquenessConflict } from './scim-errors.js';
import { GROUP_SCHEMA, USER_SCHEMA, } from './scim-types.js';
const userCaseExact = caseExactRule(USER_RESOURCE_SCHEMA);
const groupCaseExact = caseExactRule(GROUP_RESOURCE_SCHEMA);
export class ResourceStore {
    scimBase;
    userTable = new ResourceTable();
    groupTable = new ResourceTable();
    userNames = new ValueIndex();
    userExternalIds = new ValueIndex();
    groupNames = new ValueIndex();
    groupExternalIds = new ValueIndex();
    memberships = new ValueIndex();
    /** `scimBase()` is the SCIM base URL that `meta.location` starts with. */
    constructor(scimBase) {
        this.scimBase = scimBase;
    }
    getUser(id) {
        return this.userTable.get(id);
    }
    getGroup(id) {
        return this.groupTable.get(id);
    }
    users() {
        return this.userTable.all();
    }
    groups() {
        return this.groupTable.all();
    }
    counts() {
        return { users: this.userTable.size, groups: this.groupTable.size };
    }
    findUserByUserName(userName) {
        const [id] = this.userNames.get(userName.toLowerCase());
        return id === undefined ? undefined : this.userTable.get(id);
    }
    findUsersByExternalId(externalId) {
        return this.userTable.inOrder(this.userExternalIds.get(externalId));
    }
    findGroupByDisplayName(displayName) {
        const [id] = this.groupNames.get(displayName.toLowerCase());
        return id === undefined ? undefined : this.groupTable.get(id);
    }
    listUsers(query) {
        return queryTable(this.userTable, query, this.userLookup, { caseExact: userCaseExact });
    }
    listGroups(query) {
        return queryTable(this.groupTable, query, this.groupLookup, { caseExact: groupCaseExact });
    }
    createUser(attributes, id = randomUUID()) {
        this.checkNewId(id, this.userTable.get(id) !== undefined);
        this.checkUserName(attributes.userName, id);
        const now = timestamp();
        const user = freeze({ schemas: [USER_SCHEMA], id, ...attributes, meta: this.meta('User', id, now, now) });
        this.userTable.insert(user);
        this.indexUser(user);
        return user;
    }
    replaceUser(id, attributes) {
        const existing = this.userTable.get(id);
        if (existing === undefined)
            throw notFound(id);
        this.checkUserName(attributes.userName, id);
        const { schemas, meta, ...before } = existing;
        if (sameJson(before, { id, ...attributes }))
            return existing;
        const user = freeze({ schemas, id, ...attributes, meta: { ...meta, lastModified: timestamp() } });
        this.unindexUser(existing);
        this.userTable.replace(user);
        this.indexUser(user);
        if (user.userName !== existing.userName)
            this.renameMember(id, user.userName);
        return user;
    }
    deleteUser(id) {
        const user = this.userTable.delete(id);
        if (user === undefined)
            throw notFound(id);
        this.unindexUser(user);
        for (const groupId of [...this.memberships.get(id)]) {
            const group = this.groupTable.get(groupId);
            if (group === undefined)
                continue;
            const members = group.members.map((member) => member.value).filter((value) => value !== id);
            this.replaceGroup(groupId, { ...groupAttributes(group), members });
        }
    }
    createGroup(attributes, id = randomUUID()) {
        this.checkNewId(id, this.groupTable.get(id) !== undefined);
        this.checkDisplayName(attributes.displayName, id);
        const now = timestamp();
        const group = freeze(this.buildGroup(id, attributes, this.meta('Group', id, now, now)));
        this.groupTable.insert(group);
        this.indexGroup(group);
        return group;
    }
    replaceGroup(id, attributes) {
        const existing = this.groupTable.get(id);
        if (existing === undefined)
            throw notFound(id);
        this.checkDisplayName(attributes.displayName, id);
        if (sameJson(groupAttributes(existing), attributes))
            return existing;
        const group = freeze(this.buildGroup(id, attributes, { ...existing.meta, lastModified: timestamp() }));
        this.unindexGroup(existing);
        this.groupTable.replace(group);
        this.indexGroup(group);
        return group;
    }
    deleteGroup(id) {
        const group = this.groupTable.delete(id);
        if (group === undefined)
            throw notFound(id);
        this.unindexGroup(group);
    }
    clear() {
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
    userLookup = (attribute, value) => {
        if (attribute === 'id')
            return new Set(this.userTable.get(value) === undefined ? [] : [value]);
        if (attribute === 'username')
            return this.userNames.get(value.toLowerCase());
        if (attribute === 'externalid')
            return this.userExternalIds.get(value);
        return undefined;
    };
    groupLookup = (attribute, value) => {
        if (attribute === 'id')
            return new Set(this.groupTable.get(value) === undefined ? [] : [value]);
        if (attribute === 'displayname')
            return this.groupNames.get(value.toLowerCase());
        if (attribute === 'externalid')
            return this.groupExternalIds.get(value);
        if (attribute === 'members.value')
            return this.memberships.get(value);
        return undefined;
    };
    buildGroup(id, attributes, meta) {
        const unknown = attributes.members.filter((member) => this.userTable.get(member) === undefined);
        if (unknown.length > 0) {
            const list = unknown.map((value) => JSON.stringify(value)).join(', ');
            throw badRequest('invalidValue', `members: ${list} ${unknown.length === 1 ? 'is not the id of an existing user' : 'are not ids of existing users'}`);
        }
        const members = attributes.members.map((value) => ({
            value,
            display: this.userTable.get(value)?.userName ?? '',
        }));
        const { externalId, displayName } = attributes;
        return compact({ schemas: [GROUP_SCHEMA], id, externalId, displayName, members, meta });
    }
    renameMember(userId, userName) {
        for (const groupId of this.memberships.get(userId)) {
            const group = this.groupTable.get(groupId);
            if (group === undefined)
                continue;
            const members = group.members.map((member) => member.value === userId ? { value: userId, display: userName } : member);
            this.groupTable.replace(freeze({ ...group, members }));
        }
    }
    checkNewId(id, taken) {
        if (id === '' || id.includes('/'))
            throw badRequest('invalidValue', `id ${JSON.stringify(id)} is not a usable id`);
        if (taken)
            throw uniquenessConflict(`id ${JSON.stringify(id)} is already in use`);
    }
    checkUserName(userName, id) {
        for (const other of this.userNames.get(userName.toLowerCase())) {
            if (other !== id)
                throw uniquenessConflict(`userName ${JSON.stringify(userName)} is already in use`);
        }
    }
    checkDisplayName(displayName, id) {
        for (const other of this.groupNames.get(displayName.toLowerCase())) {
            if (other !== id)
                throw uniquenessConflict(`displayName ${JSON.stringify(displayName)} is already in use`);
        }
    }
    indexUser(user) {
        this.userNames.add(user.userName.toLowerCase(), user.id);
        this.userExternalIds.add(user.externalId, user.id);
    }
    unindexUser(user) {
        this.userNames.remove(user.userName.toLowerCase(), user.id);
        this.userExternalIds.remove(user.externalId, user.id);
    }
    indexGroup(group) {
        this.groupNames.add(group.displayName.toLowerCase(), group.id);
        this.groupExternalIds.add(group.externalId, group.id);
        for (const member of group.members)
            this.memberships.add(member.value, group.id);
    }
    unindexGroup(group) {
        this.groupNames.remove(group.displayName.toLowerCase(), group.id);
        this.groupExternalIds.remove(group.externalId, group.id);
        for (const member of group.members)
            this.memberships.remove(member.value, group.id);
    }
    meta(resourceType, id, created, lastModified) {
        const collection = resourceType === 'User' ? 'Users' : 'Groups';
        return { resourceType, created, lastModified, location: `${this.scimBase()}/${collection}/${id}` };
    }
}
export function groupAttributes(group) {
    const { externalId, displayName, members } = group;
    return compact({ externalId, displayName, members: members.map((member) => member.value) });
}
export function userAttributes(user) {
    const { schemas: _schemas, id: _id, meta: _meta, ...attributes } = user;
    return attributes;
}
let lastTime = 0;
let lastTimestamp = '';
/** ISO 8601 date-time of now; bulk inserts within one millisecond share the string. */
function timestamp() {
    const now = Date.now();
    if (now !== lastTime) {
        lastTime = now;
        lastTimestamp = new Date(now).toISOString();
    }
    return lastTimestamp;
}
function sameJson(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
}
/** Stored resources are immutable: readers share them, writers replace them. */
function freeze(value) {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value))
        return value;
    if (Array.isArray(value))
        for (const item of value)
            freeze(item);
    else
        for (const key in value)
            freeze(value[key]);
    return Object.freeze(value);
}
//# sourceMappingURL=resource-store.js.map
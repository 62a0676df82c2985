import { BridgeError, isBridgeError } from '../../src/domain/errors.js';
import { lookupAttribute } from '../../src/domain/scim-filter.js';
import { readGroup, readUser } from './resource-validation.js';
const DIRECT = { requireSchemas: false };
export function seedTarget(store, users, groups) {
    users.forEach((user, index) => at(`users[${index}]`, () => store.createUser(readUser(user, DIRECT), ownId(user))));
    groups.forEach((group, index) => at(`groups[${index}]`, () => {
        const members = resolveMembers(store, lookupAttribute(group, 'members'));
        const body = typeof group === 'object' && group !== null ? { ...group, members } : group;
        store.createGroup(readGroup(body, DIRECT), ownId(group));
    }));
    return { users: users.length, groups: groups.length };
}
function ownId(item) {
    const id = lookupAttribute(item, 'id');
    return typeof id === 'string' ? id : undefined;
}
function resolveMembers(store, members) {
    if (!Array.isArray(members))
        return members;
    return members.map((member) => {
        if (typeof member !== 'string')
            return member;
        const found = store.findUsersByExternalId(member);
        const [user] = found;
        if (found.length !== 1 || user === undefined) {
            const detail = `member ${JSON.stringify(member)} is the externalId of ${found.length} users, not exactly one`;
            throw new BridgeError('invalid_input', detail, { status: 400, detail });
        }
        return { value: user.id };
    });
}
function at(label, insert) {
    try {
        insert();
    }
    catch (error) {
        if (!isBridgeError(error))
            throw error;
        const detail = `${label}: ${error.detail ?? error.message}`;
        throw new BridgeError(error.code, detail, { status: error.status ?? 400, detail, cause: error });
    }
}
//# sourceMappingURL=seed.js.map
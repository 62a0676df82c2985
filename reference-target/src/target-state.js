import { groupAttributes, userAttributes } from './resource-store.js';
import { readGroup, readUser } from './resource-validation.js';
import { notFound } from './scim-errors.js';
const DIRECT = { requireSchemas: false };
export function createTargetState(store) {
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
            if (current === undefined)
                throw notFound(id);
            return store.replaceUser(id, readUser({ ...userAttributes(current), ...change }, DIRECT));
        },
        updateGroup: (id, change) => {
            const current = store.getGroup(id);
            if (current === undefined)
                throw notFound(id);
            const members = current.members.map(({ value }) => ({ value }));
            return store.replaceGroup(id, readGroup({ ...groupAttributes(current), members, ...change }, DIRECT));
        },
        deleteUser: (id) => store.deleteUser(id),
        deleteGroup: (id) => store.deleteGroup(id),
        clear: () => store.clear(),
    };
}
//# sourceMappingURL=target-state.js.map
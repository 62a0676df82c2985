import { GROUP_SCHEMA, USER_SCHEMA } from './scim-types.js';
function attribute(name, description, options = {}) {
    return {
        name,
        type: 'string',
        multiValued: false,
        required: false,
        caseExact: false,
        mutability: 'readWrite',
        returned: 'default',
        uniqueness: 'none',
        description,
        ...options,
    };
}
const READ_ONLY = { mutability: 'readOnly' };
const ID = attribute('id', 'Identifier assigned by the service provider.', {
    ...READ_ONLY,
    caseExact: true,
    returned: 'always',
    uniqueness: 'server',
});
const EXTERNAL_ID = attribute('externalId', 'Identifier chosen by the provisioning client.', {
    caseExact: true,
});
const META = attribute('meta', 'Resource metadata.', {
    ...READ_ONLY,
    type: 'complex',
    subAttributes: [
        attribute('resourceType', 'The resource type.', { ...READ_ONLY, caseExact: true }),
        attribute('created', 'When the resource was created.', { ...READ_ONLY, type: 'dateTime' }),
        attribute('lastModified', 'When the resource was last changed.', { ...READ_ONLY, type: 'dateTime' }),
        attribute('location', 'The URI of the resource.', { ...READ_ONLY, type: 'reference', caseExact: true }),
    ],
});
export const USER_RESOURCE_SCHEMA = {
    id: USER_SCHEMA,
    name: 'User',
    endpoint: '/Users',
    attributes: [
        ID,
        EXTERNAL_ID,
        attribute('userName', 'Unique identifier of the user, typically an e-mail address.', {
            required: true,
            uniqueness: 'server',
        }),
        attribute('name', "The user's name.", {
            type: 'complex',
            subAttributes: [attribute('givenName', 'Given name.'), attribute('familyName', 'Family name.')],
        }),
        attribute('displayName', 'Name shown to people.'),
        attribute('emails', 'E-mail addresses.', {
            type: 'complex',
            multiValued: true,
            subAttributes: [
                attribute('value', 'The address.', { required: true }),
                attribute('type', 'A label such as work or home.'),
                attribute('primary', 'The preferred address; true at most once.', { type: 'boolean' }),
            ],
        }),
        attribute('active', 'false deactivates the user.', { type: 'boolean' }),
        META,
    ],
};
export const GROUP_RESOURCE_SCHEMA = {
    id: GROUP_SCHEMA,
    name: 'Group',
    endpoint: '/Groups',
    attributes: [
        ID,
        EXTERNAL_ID,
        attribute('displayName', 'Name of the group, unique.', { required: true, uniqueness: 'server' }),
        attribute('members', 'Member users.', {
            type: 'complex',
            multiValued: true,
            subAttributes: [
                attribute('value', 'The id of a member user.', {
                    caseExact: true,
                    mutability: 'immutable',
                    required: true,
                }),
                attribute('display', "The member's userName.", READ_ONLY),
            ],
        }),
        META,
    ],
};
export function findAttribute(definitions, name) {
    const lower = name.toLowerCase();
    return definitions?.find((definition) => definition.name.toLowerCase() === lower);
}
/** The caseExact rule of RFC 7643 §2.2 for a canonical (lower-cased, dotted) attribute path. */
export function caseExactRule(schema) {
    const exact = new Set();
    for (const definition of schema.attributes) {
        if (definition.caseExact)
            exact.add(definition.name.toLowerCase());
        for (const sub of definition.subAttributes ?? []) {
            if (sub.caseExact)
                exact.add(`${definition.name}.${sub.name}`.toLowerCase());
        }
    }
    return (attributePath) => exact.has(attributePath);
}
/** Whether a schema URN used in a path names this resource's core schema (RFC 7644 §3.10). */
export function isOwnSchema(schema, urn) {
    return urn === undefined || urn.toLowerCase() === schema.id.toLowerCase();
}
//# sourceMappingURL=resource-schemas.js.map
import { GROUP_RESOURCE_SCHEMA, USER_RESOURCE_SCHEMA, } from './resource-schemas.js';
import { RESOURCE_TYPE_SCHEMA, SCHEMA_SCHEMA, SERVICE_PROVIDER_CONFIG_SCHEMA } from './scim-types.js';
/** The discovery endpoints of RFC 7644 §4, as RFC 7643 §5-7 shape them. */
export const RESOURCE_SCHEMAS = [USER_RESOURCE_SCHEMA, GROUP_RESOURCE_SCHEMA];
/** RFC 7643 §5. */
export function serviceProviderConfig(capabilities) {
    return {
        schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
        patch: { supported: capabilities.patchSupported },
        bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
        filter: { supported: true, maxResults: capabilities.pageCap },
        changePassword: { supported: false },
        sort: { supported: false },
        etag: { supported: false },
        authenticationSchemes: [
            {
                type: 'oauthbearertoken',
                name: 'OAuth Bearer Token',
                description: 'The SCIM token from the account settings, sent as Authorization: Bearer <token>',
                primary: true,
            },
        ],
        meta: {
            resourceType: 'ServiceProviderConfig',
            location: `${capabilities.scimUrl}/ServiceProviderConfig`,
        },
    };
}
/** RFC 7643 §6. */
export function resourceType(schema, scimUrl) {
    return {
        schemas: [RESOURCE_TYPE_SCHEMA],
        id: schema.name,
        name: schema.name,
        endpoint: schema.endpoint,
        description: schema.name === 'User' ? 'User Account' : 'Group',
        schema: schema.id,
        schemaExtensions: [],
        meta: { resourceType: 'ResourceType', location: `${scimUrl}/ResourceTypes/${schema.name}` },
    };
}
/** RFC 7643 §7. */
export function schemaRepresentation(schema, scimUrl) {
    return {
        schemas: [SCHEMA_SCHEMA],
        id: schema.id,
        name: schema.name,
        description: `${schema.name} as the platform supports it`,
        attributes: schema.attributes.map(attributeRepresentation),
        meta: { resourceType: 'Schema', location: `${scimUrl}/Schemas/${schema.id}` },
    };
}
function attributeRepresentation(definition) {
    const { subAttributes, ...rest } = definition;
    return subAttributes === undefined
        ? rest
        : { ...rest, subAttributes: subAttributes.map(attributeRepresentation) };
}
export function findResourceSchema(key) {
    const lower = key.toLowerCase();
    return RESOURCE_SCHEMAS.find((schema) => schema.name.toLowerCase() === lower || schema.id.toLowerCase() === lower);
}
//# sourceMappingURL=discovery.js.map
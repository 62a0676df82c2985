import { GROUP_SCHEMA, USER_SCHEMA, type ResourceType } from './scim-types.js';

/**
 * The attributes the platform supports, described as RFC 7643 §7 attribute definitions. One table
 * serves /Schemas, PATCH path resolution, attribute projection and case-exact filtering.
 */

export interface AttributeDefinition {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued: boolean;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable';
  /** RFC 7643 §7: `always` attributes survive `attributes` and `excludedAttributes`. */
  returned: 'always' | 'default';
  uniqueness: 'none' | 'server';
  description: string;
  /** RFC 7643 §7: the values a client should expect (`members.type`). */
  canonicalValues?: string[];
  /** RFC 7643 §7: what a `reference` may point at — resource types, `uri` or `external` (§2.3.7). */
  referenceTypes?: string[];
  subAttributes?: AttributeDefinition[];
}

export interface ResourceSchema {
  id: string;
  name: ResourceType;
  endpoint: '/Users' | '/Groups';
  attributes: AttributeDefinition[];
}

function attribute(
  name: string,
  description: string,
  options: Partial<Omit<AttributeDefinition, 'name' | 'description'>> = {},
): AttributeDefinition {
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

const READ_ONLY = { mutability: 'readOnly' } as const;

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
    attribute('location', 'The URI of the resource.', {
      ...READ_ONLY,
      type: 'reference',
      referenceTypes: ['uri'],
      caseExact: true,
    }),
  ],
});

export const USER_RESOURCE_SCHEMA: ResourceSchema = {
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

export const GROUP_RESOURCE_SCHEMA: ResourceSchema = {
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
        // RFC 7643 §8.7.1 defines $ref and type for members. The platform's members are users
        // only, and it neither stores nor returns these two: what a client sends is ignored.
        attribute('$ref', 'The URI of the member user.', {
          type: 'reference',
          referenceTypes: ['User'],
          mutability: 'immutable',
        }),
        attribute('type', 'The type of the member.', {
          canonicalValues: ['User'],
          mutability: 'immutable',
        }),
      ],
    }),
    META,
  ],
};

export function findAttribute(
  definitions: readonly AttributeDefinition[] | undefined,
  name: string,
): AttributeDefinition | undefined {
  const lower = name.toLowerCase();
  return definitions?.find((definition) => definition.name.toLowerCase() === lower);
}

/** The caseExact rule of RFC 7643 §2.2 for a canonical (lower-cased, dotted) attribute path. */
export function caseExactRule(schema: ResourceSchema): (attributePath: string) => boolean {
  const exact = new Set<string>();
  for (const definition of schema.attributes) {
    if (definition.caseExact) exact.add(definition.name.toLowerCase());
    for (const sub of definition.subAttributes ?? []) {
      if (sub.caseExact) exact.add(`${definition.name}.${sub.name}`.toLowerCase());
    }
  }
  return (attributePath) => exact.has(attributePath);
}

/** Whether a schema URN used in a path names this resource's core schema (RFC 7644 §3.10). */
export function isOwnSchema(schema: ResourceSchema, urn: string | undefined): boolean {
  return urn === undefined || urn.toLowerCase() === schema.id.toLowerCase();
}

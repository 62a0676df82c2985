/**
 * The resources and messages of the platform's SCIM API as the reference target holds and sends
 * them (RFC 7643 §4.1 User, §4.2 Group; RFC 7644 §3.4.2 ListResponse, §3.12 Error). Stored
 * resources are deep-frozen: every change replaces the object, so handing one out never copies.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export type ResourceType = 'User' | 'Group';

/** RFC 7643 §3.1 meta; `created` and `lastModified` are ISO 8601 date-times. */
export interface ScimMeta {
  resourceType: ResourceType;
  created: string;
  lastModified: string;
  location: string;
}

export interface ScimName {
  givenName?: string;
  familyName?: string;
}

export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
}

export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name?: ScimName;
  displayName?: string;
  emails?: ScimEmail[];
  active: boolean;
  meta: ScimMeta;
}

/** A member as stored and sent: `display` is always the member's current userName. */
export interface ScimMember {
  value: string;
  display: string;
}

export interface ScimGroup {
  schemas: string[];
  id: string;
  externalId?: string;
  displayName: string;
  members: ScimMember[];
  meta: ScimMeta;
}

export type ScimResource = ScimUser | ScimGroup;

/** The writable attributes of a user, as validated from a request body. */
export type UserAttributes = Omit<ScimUser, 'schemas' | 'id' | 'meta'>;

/** The writable attributes of a group; `members` are user ids. */
export interface GroupAttributes {
  externalId?: string;
  displayName: string;
  members: string[];
}

export interface ListResponse<T> {
  schemas: [typeof LIST_RESPONSE_SCHEMA];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: T[];
}

export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA];
  status: string;
  scimType?: string;
  detail: string;
}

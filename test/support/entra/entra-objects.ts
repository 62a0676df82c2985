/**
 * The directory objects the emulation holds and the JSON Graph v1.0 gives for them
 * (api-reference/v1.0/resources/{user,group,device,orgcontact,serviceprincipal}.md). A property
 * absent from an object's record was never set: lists show it as null (or [] for collections), a
 * delta response leaves it out (user-delta.md "If the property has never been set before it will
 * not be included in the response at all").
 */

export type ObjectKind = 'user' | 'group' | 'device' | 'orgContact' | 'servicePrincipal';

export type Props = Record<string, unknown>;

export interface DirectoryObject {
  id: string;
  kind: ObjectKind;
  props: Props;
  /** Set while the object is soft-deleted (in deletedItems, restorable for 30 days). */
  deletedAt?: number;
}

const USER_PROPERTIES = [
  'id',
  'accountEnabled',
  'ageGroup',
  'businessPhones',
  'city',
  'companyName',
  'country',
  'createdDateTime',
  'creationType',
  'deletedDateTime',
  'department',
  'displayName',
  'employeeHireDate',
  'employeeId',
  'employeeType',
  'externalUserState',
  'faxNumber',
  'givenName',
  'identities',
  'imAddresses',
  'jobTitle',
  'mail',
  'mailNickname',
  'mobilePhone',
  'officeLocation',
  'onPremisesDistinguishedName',
  'onPremisesDomainName',
  'onPremisesImmutableId',
  'onPremisesLastSyncDateTime',
  'onPremisesSamAccountName',
  'onPremisesSecurityIdentifier',
  'onPremisesSyncEnabled',
  'onPremisesUserPrincipalName',
  'otherMails',
  'passwordPolicies',
  'postalCode',
  'preferredDataLocation',
  'preferredLanguage',
  'proxyAddresses',
  'securityIdentifier',
  'showInAddressList',
  'state',
  'streetAddress',
  'surname',
  'usageLocation',
  'userPrincipalName',
  'userType',
];

/** user-list.md: without `$select`, only these 11 properties come back (no accountEnabled). */
export const USER_DEFAULT = [
  'businessPhones',
  'displayName',
  'givenName',
  'jobTitle',
  'mail',
  'mobilePhone',
  'officeLocation',
  'preferredLanguage',
  'surname',
  'userPrincipalName',
  'id',
];

/** user.md: returned only for a single user; a collection answers 501 for them. */
export const USER_SINGLE_ONLY = [
  'aboutMe',
  'birthday',
  'hireDate',
  'interests',
  'mailboxSettings',
  'mySite',
  'pastProjects',
  'preferredName',
  'responsibilities',
  'schools',
  'skills',
];

const GROUP_PROPERTIES = [
  'id',
  'classification',
  'createdDateTime',
  'creationOptions',
  'deletedDateTime',
  'description',
  'displayName',
  'expirationDateTime',
  'groupTypes',
  'isAssignableToRole',
  'mail',
  'mailEnabled',
  'mailNickname',
  'membershipRule',
  'membershipRuleProcessingState',
  'onPremisesDomainName',
  'onPremisesLastSyncDateTime',
  'onPremisesNetBiosName',
  'onPremisesSamAccountName',
  'onPremisesSecurityIdentifier',
  'onPremisesSyncEnabled',
  'preferredDataLocation',
  'preferredLanguage',
  'proxyAddresses',
  'renewedDateTime',
  'resourceBehaviorOptions',
  'resourceProvisioningOptions',
  'securityEnabled',
  'securityIdentifier',
  'theme',
  'visibility',
];

const DEVICE_PROPERTIES = [
  'id',
  'accountEnabled',
  'deviceId',
  'displayName',
  'operatingSystem',
  'operatingSystemVersion',
  'trustType',
];
const CONTACT_PROPERTIES = ['id', 'companyName', 'displayName', 'givenName', 'jobTitle', 'mail', 'surname'];
const SP_PROPERTIES = [
  'id',
  'accountEnabled',
  'appDisplayName',
  'appId',
  'appRoleAssignmentRequired',
  'displayName',
  'servicePrincipalType',
];

const CATALOG: Record<ObjectKind, { properties: string[]; defaults: string[] }> = {
  user: { properties: USER_PROPERTIES, defaults: USER_DEFAULT },
  group: { properties: GROUP_PROPERTIES, defaults: GROUP_PROPERTIES },
  device: { properties: DEVICE_PROPERTIES, defaults: DEVICE_PROPERTIES },
  orgContact: { properties: CONTACT_PROPERTIES, defaults: CONTACT_PROPERTIES },
  servicePrincipal: { properties: SP_PROPERTIES, defaults: SP_PROPERTIES },
};

const COLLECTIONS = new Set([
  'businessPhones',
  'identities',
  'imAddresses',
  'otherMails',
  'proxyAddresses',
  'groupTypes',
  'creationOptions',
  'resourceBehaviorOptions',
  'resourceProvisioningOptions',
]);

const CANONICAL = new Map<string, Map<string, string>>(
  Object.entries(CATALOG).map(([kind, { properties }]) => [
    kind,
    new Map(properties.map((name) => [name.toLowerCase(), name])),
  ]),
);

/** The property's canonical name on `kind` ($select is case-insensitive), or undefined. */
export function propertyOf(kind: ObjectKind, name: string): string | undefined {
  return CANONICAL.get(kind)?.get(name.toLowerCase());
}

export function defaultsOf(kind: ObjectKind): string[] {
  return CATALOG[kind].defaults;
}

export function isWritable(kind: ObjectKind, name: string): boolean {
  return name !== 'id' && name !== 'deletedDateTime' && propertyOf(kind, name) === name;
}

/** `#microsoft.graph.user` etc. — how a directoryObject collection names each member's type. */
export function odataType(kind: ObjectKind): string {
  return `#microsoft.graph.${kind}`;
}

/** An object as a list or a GET shows it: every asked property, never-set ones as null or []. */
export function listJson(object: DirectoryObject, select: readonly string[] | undefined): Props {
  const json: Props = {};
  for (const name of select ?? defaultsOf(object.kind)) {
    if (propertyOf(object.kind, name) !== name) continue;
    json[name] = name === 'id' ? object.id : presentValue(object.props, name);
  }
  return json;
}

/** A directoryObject collection's item: `@odata.type` first, then the properties of its type. */
export function memberJson(
  object: DirectoryObject,
  select: readonly string[] | undefined,
  full: boolean,
): Props {
  if (!full) return limitedJson(object, select);
  return { '@odata.type': odataType(object.kind), ...listJson(object, select) };
}

/**
 * What an app without the permission to read a member's type sees of it (group-list-memberof.md
 * "Limited information returned for inaccessible member objects"): the type and the id, every
 * other asked property null.
 */
function limitedJson(object: DirectoryObject, select: readonly string[] | undefined): Props {
  const json: Props = { '@odata.type': odataType(object.kind) };
  for (const name of select ?? defaultsOf(object.kind)) {
    if (propertyOf(object.kind, name) === name) json[name] = name === 'id' ? object.id : null;
  }
  json.id = object.id;
  return json;
}

/** An object as delta shows it: `id` always, never-set properties left out. */
export function deltaJson(object: DirectoryObject, names: Iterable<string>): Props {
  const json: Props = {};
  for (const name of names) {
    if (name === 'id' || name === 'members') continue;
    if (Object.hasOwn(object.props, name)) json[name] = object.props[name];
  }
  json.id = object.id;
  return json;
}

function presentValue(props: Props, name: string): unknown {
  if (Object.hasOwn(props, name)) return props[name];
  return COLLECTIONS.has(name) ? [] : null;
}

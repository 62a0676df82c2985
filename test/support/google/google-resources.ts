import type { ExternalId, GroupRecord, MemberRecord, UserRecord, WorkspaceModel } from './google-model.js';

/**
 * The Directory API's resources as its reference describes them (developers.google.com/workspace/
 * admin/directory/reference/rest/v1/users, groups, members). Google's JSON leaves out a field that
 * has no value — an empty list is absent, not `[]` — and writes int64 values as strings
 * (`directMembersCount`).
 */

export type Projection = 'basic' | 'custom' | 'full';

export function userJson(
  model: WorkspaceModel,
  user: UserRecord,
  projection: Projection = 'basic',
  mask: readonly string[] = [],
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    kind: 'admin#directory#user',
    id: user.id,
    etag: user.etag,
    primaryEmail: user.primaryEmail,
    name: {
      givenName: user.givenName,
      familyName: user.familyName,
      fullName: `${user.givenName} ${user.familyName}`.trim(),
    },
    isAdmin: user.isAdmin,
    isDelegatedAdmin: false,
    lastLoginTime: '1970-01-01T00:00:00.000Z',
    creationTime: new Date(user.creationTime).toISOString(),
    agreedToTerms: true,
    suspended: user.suspended,
    archived: user.archived,
    changePasswordAtNextLogin: false,
    ipWhitelisted: false,
    emails: [{ address: user.primaryEmail, primary: true }, ...user.aliases.map((address) => ({ address }))],
    customerId: model.customerId,
    orgUnitPath: user.orgUnitPath,
    isMailboxSetup: true,
    isEnrolledIn2Sv: false,
    isEnforcedIn2Sv: false,
    includeInGlobalAddressList: true,
  };
  if (user.suspended) json.suspensionReason = 'ADMIN';
  if (user.aliases.length > 0) json.aliases = [...user.aliases];
  if (user.externalIds.length > 0) json.externalIds = user.externalIds.map(copyExternalId);
  if (user.deletionTime !== undefined) json.deletionTime = new Date(user.deletionTime).toISOString();
  const schemas = customSchemas(user, projection, mask);
  if (schemas) json.customSchemas = schemas;
  return json;
}

/** `customSchemas` only with `projection=full` (all) or `custom` (those of `customFieldMask`). */
function customSchemas(user: UserRecord, projection: Projection, mask: readonly string[]) {
  if (projection === 'basic') return undefined;
  const names = Object.keys(user.customSchemas).filter((n) => projection === 'full' || mask.includes(n));
  if (names.length === 0) return undefined;
  const schemas: Record<string, unknown> = {};
  for (const name of names) schemas[name] = Object.assign({}, user.customSchemas[name]);
  return schemas;
}

function copyExternalId(id: ExternalId): ExternalId {
  const copy: ExternalId = { value: id.value, type: id.type };
  if (id.customType !== undefined) copy.customType = id.customType;
  return copy;
}

export function groupJson(model: WorkspaceModel, group: GroupRecord): Record<string, unknown> {
  const json: Record<string, unknown> = {
    kind: 'admin#directory#group',
    id: group.id,
    etag: group.etag,
    email: group.email,
    name: group.name,
    directMembersCount: String(model.members.get(group.id)?.size ?? 0),
    adminCreated: true,
  };
  if (group.description) json.description = group.description;
  if (group.aliases.length > 0) json.aliases = [...group.aliases];
  return json;
}

/**
 * A member as `members.list` gives it: a user's current primary address (or the alias it was added
 * by) and `status` ACTIVE or SUSPENDED; a group's address; an external address with no status
 * (ssosync and idp-scim-sync skip members whose status is empty); a CUSTOMER member (everyone in
 * the account) with the customer's id and no address.
 */
export function memberJson(model: WorkspaceModel, member: MemberRecord): Record<string, unknown> {
  // Built field by field, not by spreading: members.list answers thousands of these a second.
  const json: Record<string, unknown> = {
    kind: 'admin#directory#member',
    etag: member.etag,
    id: member.id,
    role: member.role,
    type: member.type,
  };
  if (member.type === 'CUSTOMER') {
    json.status = 'ACTIVE';
  } else if (member.externalEmail !== undefined) {
    json.email = member.externalEmail;
  } else if (member.type === 'GROUP') {
    json.email = model.groups.get(member.id)?.email;
    json.status = 'ACTIVE';
  } else {
    const user = model.users.get(member.id);
    if (!user) return json;
    const alias = member.viaAlias !== undefined && user.aliases.includes(member.viaAlias);
    json.email = alias ? member.viaAlias : user.primaryEmail;
    json.status = user.suspended ? 'SUSPENDED' : 'ACTIVE';
    json.delivery_settings = 'ALL_MAIL';
  }
  return json;
}

/**
 * The Google Workspace emulation (test/support/google/): Google's OAuth token endpoint for
 * service accounts (JWT bearer, domain-wide delegation), the Admin SDK Directory API (users,
 * groups, members) and the Reports API (admin and groups_enterprise activity logs), built from
 * Google's public documents, strict where Google is, over real HTTP on a free port. Nothing of
 * the bridge is used.
 *
 * `const google = await GoogleWorkspace.start(options?)` — options: `domain` (example.com),
 * `secondaryDomains`, `customerId`, `adminEmail` (admin@<domain>, a super admin created for you),
 * `delegatedScopes` (granted to the default service account; READ_ONLY_SCOPES by default),
 * `tokenLifetimeSeconds` (3600), `quotaPerMinute` (2400), `lag` ({minMs, maxMs}), `seed`,
 * `clockStart`. The handle:
 *
 * Where it is
 * - `url` — the API root (a client's `rootUrl`); `tokenUrl` — `${url}/token`, the key's token_uri.
 * - `customerId`, `domain`, `adminEmail`.
 *
 * Sign-in
 * - `serviceAccount: ServiceAccountKey` — the default key file's content (type, project_id,
 *   private_key_id, private_key PEM, client_email, client_id, token_uri = tokenUrl, …);
 *   `keyFile(key?)` — its JSON text.
 * - `accounts.create({projectId?, name?, delegatedScopes?}) → ServiceAccountKey` (no delegation
 *   unless scopes are given); `accounts.addKey(clientEmail) → ServiceAccountKey` (rotation);
 *   `accounts.deleteKey(clientEmail, keyId)`; `accounts.setDelegation(clientEmail, scopes | undefined)`.
 * - `assertion(claims?, key?) → string` — a signed JWT with defaults (iss, read-only scopes,
 *   aud = tokenUrl, iat = now, exp = now + 3600, sub = adminEmail) that `claims` override (pass
 *   `sub: undefined` to leave it out); `tokenForm(assertion) → URLSearchParams`; `signJwt(claims,
 *   pem, kid?)` (exported) for anything else.
 * - `setTokenLifetime(seconds)`; `expireAccessTokens()` — every token issued so far answers 401.
 *   Access tokens expire on Google's clock; assertions are checked against the machine's clock.
 *
 * Google's clock: `clock.now()`, `clock.advance(ms)`, `clock.freeze()`, `clock.resume()`,
 * `clock.iso()` — token expiry, page-token age (3 days), event times and visibility, quota minutes.
 *
 * Directory changes (recorded in the audit logs as Google records them; `options` is
 * `{by?: actor address (default the admin), visibleAfterMs?: this record's own lag}`):
 * - `users.create(UserInput, options?) → UserRecord` (CREATE_USER); `users.update(key, {givenName?,
 *   familyName?, orgUnitPath?, isAdmin?, externalIds?, customSchemas?}, options?)`
 *   (CHANGE_FIRST_NAME, CHANGE_LAST_NAME, MOVE_USER_TO_ORG_UNIT, GRANT/REVOKE_ADMIN_PRIVILEGE,
 *   CHANGE_USER_EXTERNAL_ID, CHANGE_USER_CUSTOM_FIELD); `users.rename(key, newEmail, {keepOldAsAlias?})`
 *   (RENAME_USER, NEW_VALUE; the old address stops resolving unless kept); `users.suspend`,
 *   `unsuspend`, `archive`, `unarchive`, `delete` (leaves every group), `undelete(id)`;
 *   `users.addAlias(key, alias)` / `removeAlias` (ADD_/REMOVE_NICKNAME); `users.bulkUpload(inputs)`
 *   (one USERS_BULK_UPLOAD). Keys are an id, a primary address or an alias. Only admins change users.
 * - `groups.create(GroupInput)`, `groups.update(key, {name?, description?})`,
 *   `groups.changeEmail(key, newEmail)`, `groups.delete(key)` (GROUP_SETTINGS events);
 *   `groups.addMember(groupKey, {email? | id?, role?: OWNER|MANAGER|MEMBER, type?: 'CUSTOMER'}, options?)`,
 *   `groups.removeMember(groupKey, memberKey, options?)`, `groups.updateMember(groupKey, memberKey,
 *   role, options?)`: by an admin → admin log (ADD_/REMOVE_/UPDATE_GROUP_MEMBER with GROUP_EMAIL,
 *   USER_EMAIL, MEMBER_ROLE); by an OWNER or MANAGER of the group who is not an admin →
 *   groups_enterprise log (add_member/remove_member, add_member_role/remove_member_role with
 *   group_id, member_id, member_role, member_type). A membership closing a cycle is refused.
 *   `groups.bulkAddMembers(groupKey, inputs)` (one GROUP_MEMBER_BULK_UPLOAD). An address outside
 *   the account's domains is an external member (no status).
 * - `seed.user(UserInput)`, `seed.group(GroupInput)`, `seed.member(groupKey, MemberInput)` (cycles
 *   allowed), `seed.foreignGroup(GroupInput)` (another customer's group: members.list → 403) —
 *   state that was always there, with no audit record. `buildLargeDirectory(google, {users?,
 *   groups?, fanOut?, seed?}) → LargeDirectory` seeds 100,000 users and 5,000 nested groups.
 *
 * Audit logs: `setLag(minMs, maxMs?)` — each record becomes visible a lag after its time, drawn per
 * record (late and out of order); `log.dropNext = n`, `log.dropRate = r` — records never shown;
 * `activities(application?)` — every record kept, visible or not, as the API shows them.
 *
 * Faults: `fault({kind, method?, path?, times?})` — the next matching requests (times: 1; Infinity
 * never clears) get `kind`: 'userRateLimitExceeded' | 'quotaExceeded' (403) | 'rateLimitExceeded'
 * (429) | 'backendError' (503) | 'missingListKey' (200 without the list key) | 'truncatedWalk' (a
 * page with more after it, without nextPageToken); `faultRate({kind, rate, method?, path?, seed?})`;
 * `faults.clear()`. Methods: 'directory.users.list' | 'directory.users.get' |
 * 'directory.groups.list' | 'directory.groups.get' | 'directory.members.list' | 'reports.activities.list'.
 *
 * Quota and requests: `quota.perMinute` (budget per project and impersonated user; over it, 403
 * userRateLimitExceeded); `observed() → {total, refused, peakPerMinute, minutes[]}`;
 * `requests() → {method, path, status, at, api?, subject?, took}[]` (`took`: the emulation's own
 * time on the request, ms). `close()`.
 *
 * Also: `model` (the account's records, to read), `plainCalls(google) → {exchange, signIn, get}`
 * (plain fetch calls, for checks that need no client).
 */
export * from './google/google-server.js';
export {
  buildLargeDirectory,
  type LargeDirectory,
  type LargeDirectoryOptions,
} from './google/google-fixture.js';
export { READ_ONLY_SCOPES, scopesOf, type ApiMethod } from './google/google-access.js';
export { signJwt, decodeJwt, type ServiceAccountKey } from './google/google-service-accounts.js';
export { JWT_BEARER } from './google/google-token-endpoint.js';
export type { FaultKind, FaultRate, ScriptedFault } from './google/google-faults.js';
export type { GroupInput, MemberInput, UserInput } from './google/google-seed.js';
export type { UserPatch } from './google/google-user-control.js';
export type { ChangeOptions } from './google/google-recorder.js';
export type { GroupRecord, MemberRecord, MemberRole, MemberType, UserRecord } from './google/google-model.js';
export type { Observed } from './google/google-quota.js';
export type { Application } from './google/google-audit-log.js';
export { plainCalls, type ApiBody } from './google/google-plain-client.js';

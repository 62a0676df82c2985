import type { ActivityEvent, Parameter } from './google-audit-log.js';
import type { MemberRole, MemberType } from './google-model.js';

/**
 * The events a directory change writes, with Google's names and parameter names:
 *
 * - admin log, `type=USER_SETTINGS` (reports/v1/appendix/activity/admin-user-settings): the user's
 *   primary address in `USER_EMAIL` (the old one, for a rename), the new value in `NEW_VALUE`,
 *   an alias in `USER_NICKNAME`, the former unit in `ORG_UNIT_NAME`, a custom field in
 *   `USER_CUSTOM_FIELD`; a bulk upload writes one event with its totals, not one per user;
 * - admin log, `type=GROUP_SETTINGS` (…/admin-group-settings): `GROUP_EMAIL`, the member's address
 *   in `USER_EMAIL`, a new role in `MEMBER_ROLE`, a member bulk upload's totals;
 * - groups_enterprise log, `type=moderator_action` (…/groups-enterprise): membership changes made
 *   by a group's owner or manager rather than an administrator — `add_member` with `group_id`,
 *   `member_id`, `member_role`, `member_type` (Google's prose: "owner, manager, or member",
 *   "user, group"…), and the like.
 */

const text = (name: string, value: string): Parameter => ({ name, value });
const count = (name: string, value: number): Parameter => ({ name, intValue: String(value) });

export type UserEventName =
  | 'CREATE_USER'
  | 'DELETE_USER'
  | 'UNDELETE_USER'
  | 'SUSPEND_USER'
  | 'UNSUSPEND_USER'
  | 'ARCHIVE_USER'
  | 'UNARCHIVE_USER'
  | 'GRANT_ADMIN_PRIVILEGE'
  | 'REVOKE_ADMIN_PRIVILEGE';

export function userEvent(name: UserEventName, email: string): ActivityEvent {
  return { type: 'USER_SETTINGS', name, parameters: [text('USER_EMAIL', email)] };
}

/** RENAME_USER, CHANGE_FIRST_NAME, CHANGE_LAST_NAME, CHANGE_USER_EXTERNAL_ID: the new value. */
export function userValueEvent(name: string, email: string, newValue: string): ActivityEvent {
  return {
    type: 'USER_SETTINGS',
    name,
    parameters: [text('USER_EMAIL', email), text('NEW_VALUE', newValue)],
  };
}

export function moveEvent(email: string, from: string, to: string): ActivityEvent {
  const parameters = [text('USER_EMAIL', email), text('ORG_UNIT_NAME', from), text('NEW_VALUE', to)];
  return { type: 'USER_SETTINGS', name: 'MOVE_USER_TO_ORG_UNIT', parameters };
}

export function customFieldEvent(email: string, field: string, newValue: string): ActivityEvent {
  const parameters = [
    text('USER_EMAIL', email),
    text('USER_CUSTOM_FIELD', field),
    text('NEW_VALUE', newValue),
  ];
  return { type: 'USER_SETTINGS', name: 'CHANGE_USER_CUSTOM_FIELD', parameters };
}

export function nicknameEvent(name: 'ADD_NICKNAME' | 'REMOVE_NICKNAME', email: string, alias: string) {
  return {
    type: 'USER_SETTINGS',
    name,
    parameters: [text('USER_EMAIL', email), text('USER_NICKNAME', alias)],
  };
}

export function usersBulkUploadEvent(total: number, failed: number): ActivityEvent {
  const parameters = [
    count('BULK_UPLOAD_TOTAL_USERS_NUMBER', total),
    count('BULK_UPLOAD_FAIL_USERS_NUMBER', failed),
  ];
  return { type: 'USER_SETTINGS', name: 'USERS_BULK_UPLOAD', parameters };
}

export function groupEvent(
  name: 'CREATE_GROUP' | 'DELETE_GROUP' | 'CHANGE_GROUP_DESCRIPTION',
  groupEmail: string,
): ActivityEvent {
  return { type: 'GROUP_SETTINGS', name, parameters: [text('GROUP_EMAIL', groupEmail)] };
}

/** CHANGE_GROUP_NAME and CHANGE_GROUP_EMAIL (GROUP_EMAIL is the address before the change). */
export function groupValueEvent(name: string, groupEmail: string, newValue: string): ActivityEvent {
  return {
    type: 'GROUP_SETTINGS',
    name,
    parameters: [text('GROUP_EMAIL', groupEmail), text('NEW_VALUE', newValue)],
  };
}

export function memberEvent(
  name: 'ADD_GROUP_MEMBER' | 'REMOVE_GROUP_MEMBER' | 'UPDATE_GROUP_MEMBER',
  groupEmail: string,
  memberEmail: string | undefined,
  role?: MemberRole,
): ActivityEvent {
  const parameters = [text('GROUP_EMAIL', groupEmail)];
  if (memberEmail !== undefined) parameters.push(text('USER_EMAIL', memberEmail));
  if (role !== undefined) parameters.push(text('MEMBER_ROLE', role));
  return { type: 'GROUP_SETTINGS', name, parameters };
}

export function memberBulkUploadEvent(groupEmail: string, total: number, failed: number): ActivityEvent {
  const parameters = [
    text('GROUP_EMAIL', groupEmail),
    count('GROUP_MEMBER_BULK_UPLOAD_TOTAL_NUMBER', total),
    count('GROUP_MEMBER_BULK_UPLOAD_FAILED_NUMBER', failed),
  ];
  return { type: 'GROUP_SETTINGS', name: 'GROUP_MEMBER_BULK_UPLOAD', parameters };
}

export type EnterpriseEventName = 'add_member' | 'remove_member' | 'add_member_role' | 'remove_member_role';

/** A membership change by a group's owner or manager, in the groups_enterprise log. */
export function enterpriseEvent(
  name: EnterpriseEventName,
  groupEmail: string,
  member: { email: string | undefined; role: MemberRole; type: MemberType },
): ActivityEvent {
  const parameters = [
    text('group_id', groupEmail),
    text('member_id', member.email ?? ''),
    text('member_role', member.role.toLowerCase()),
  ];
  if (name === 'add_member' || name === 'remove_member')
    parameters.push(text('member_type', member.type.toLowerCase()));
  return { type: 'moderator_action', name, parameters };
}

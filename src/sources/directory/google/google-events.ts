import type { AuditEvent } from './google-audit.js';

/**
 * What the audit records say to read again (reports/v1/appendix/activity: admin-user-settings,
 * admin-group-settings, groups-enterprise). Records name users and groups by address: a user
 * setting (`USER_SETTINGS`) names its user in `USER_EMAIL` — the old address for a `RENAME_USER`,
 * whose `NEW_VALUE` is the new one; a group setting or membership change (`GROUP_SETTINGS`) names
 * its group in `GROUP_EMAIL` (`CHANGE_GROUP_EMAIL`: the new address in `NEW_VALUE`); an owner's or
 * manager's membership change (groups_enterprise) in `group_id`. The record's values are never
 * trusted: each user and group named is read again from the Directory API. A bulk upload of users
 * names none of them: the input is read in full instead. A bulk upload of members names its group,
 * which is read again whole.
 */

export interface ChangePlan {
  /** Addresses of users to read again. */
  readonly users: Set<string>;
  /** Addresses of groups to read again, with their members. */
  readonly groups: Set<string>;
  /** Why the records cannot be followed one by one (the input is then read in full). */
  fullRead?: string;
}

export function planOf(events: readonly AuditEvent[]): ChangePlan {
  const plan: ChangePlan = { users: new Set(), groups: new Set() };
  for (const event of events) {
    const p = event.parameters;
    const add = (set: Set<string>, value: string | undefined) => {
      if (value !== undefined && value.includes('@')) set.add(value.toLowerCase());
    };
    if (event.application === 'groups_enterprise') {
      add(plan.groups, p.get('group_id'));
    } else if (event.type === 'USER_SETTINGS') {
      if (event.name === 'USERS_BULK_UPLOAD') plan.fullRead ??= 'a bulk upload of users names none of them';
      add(plan.users, p.get('USER_EMAIL'));
      if (event.name === 'RENAME_USER') add(plan.users, p.get('NEW_VALUE'));
    } else if (event.type === 'GROUP_SETTINGS') {
      add(plan.groups, p.get('GROUP_EMAIL'));
      if (event.name === 'CHANGE_GROUP_EMAIL') add(plan.groups, p.get('NEW_VALUE'));
    }
  }
  return plan;
}

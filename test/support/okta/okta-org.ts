import { randomBytes } from 'node:crypto';
import type { OktaGroupRecord, OktaProfile, OktaUserRecord } from './okta-json.js';
import { groupTarget, logEvent, userTarget, type LogEvent } from './okta-log-events.js';
import { OktaSystemLog } from './okta-system-log.js';

/**
 * The org behind the emulation: users, groups, memberships and the System Log. Changes made
 * through the control API (below) are recorded as Okta records them — the matching LogEvents are
 * appended to the log and handed to `onEvents` (the hook delivery) — while the `set…` helpers only
 * seed state, as if it had always been there.
 */
export class OktaOrg {
  readonly users = new Map<string, OktaUserRecord>();
  readonly groups = new Map<string, OktaGroupRecord>();
  readonly members = new Map<string, Set<string>>();
  readonly log = new OktaSystemLog();

  constructor(private readonly onEvents: (events: LogEvent[]) => void) {}

  /** Creates a user, STAGED unless activated (then ACTIVE): user.lifecycle.create (+ .activate). */
  createUser(profile: OktaProfile, options: { activate?: boolean; id?: string } = {}): OktaUserRecord {
    const user: OktaUserRecord = { id: options.id ?? newId('00u'), status: 'STAGED', profile };
    this.users.set(user.id, user);
    const events = [logEvent('user.lifecycle.create', [userTarget(user)], '/api/v1/users')];
    if (options.activate !== false) {
      user.status = 'ACTIVE';
      events.push(this.userEvent('user.lifecycle.activate', user, 'lifecycle/activate'));
    }
    this.record(events);
    return user;
  }

  activateUser(id: string): LogEvent[] {
    return this.lifecycle(id, 'ACTIVE', 'user.lifecycle.activate', 'lifecycle/activate');
  }

  deactivateUser(id: string): LogEvent[] {
    return this.lifecycle(id, 'DEPROVISIONED', 'user.lifecycle.deactivate', 'lifecycle/deactivate');
  }

  suspendUser(id: string): LogEvent[] {
    return this.lifecycle(id, 'SUSPENDED', 'user.lifecycle.suspend', 'lifecycle/suspend');
  }

  unsuspendUser(id: string): LogEvent[] {
    return this.lifecycle(id, 'ACTIVE', 'user.lifecycle.unsuspend', 'lifecycle/unsuspend');
  }

  /**
   * Deletes a user as Okta's DELETE does: a user not yet DEPROVISIONED is deactivated first; the
   * user leaves every group and is gone from the API.
   */
  deleteUser(id: string): LogEvent[] {
    const user = this.user(id);
    const events: LogEvent[] = [];
    if (user.status !== 'DEPROVISIONED') {
      user.status = 'DEPROVISIONED';
      events.push(this.userEvent('user.lifecycle.deactivate', user, 'lifecycle/deactivate'));
    }
    events.push(logEvent('user.lifecycle.delete.initiated', [userTarget(user)], `/api/v1/users/${id}`));
    this.users.delete(id);
    for (const set of this.members.values()) set.delete(id);
    return this.record(events);
  }

  updateProfile(id: string, changes: Partial<OktaProfile>): LogEvent[] {
    const user = this.user(id);
    user.profile = { ...user.profile, ...changes };
    return this.record([logEvent('user.account.update_profile', [userTarget(user)], `/api/v1/users/${id}`)]);
  }

  createGroup(name: string, options: { id?: string; description?: string } = {}): OktaGroupRecord {
    const group: OktaGroupRecord = { id: options.id ?? newId('00g'), type: 'OKTA_GROUP', name };
    if (options.description) group.description = options.description;
    this.groups.set(group.id, group);
    this.record([logEvent('group.lifecycle.create', [groupTarget(group)], '/api/v1/groups')]);
    return group;
  }

  deleteGroup(id: string): LogEvent[] {
    const group = this.group(id);
    this.groups.delete(id);
    this.members.delete(id);
    return this.record([logEvent('group.lifecycle.delete', [groupTarget(group)], `/api/v1/groups/${id}`)]);
  }

  addToGroup(groupId: string, userId: string): LogEvent[] {
    const [group, user] = [this.group(groupId), this.user(userId)];
    this.setMember(groupId, userId, true);
    return this.record([this.membershipEvent('group.user_membership.add', group, user)]);
  }

  removeFromGroup(groupId: string, userId: string): LogEvent[] {
    const [group, user] = [this.group(groupId), this.user(userId)];
    this.setMember(groupId, userId, false);
    return this.record([this.membershipEvent('group.user_membership.remove', group, user)]);
  }

  setMember(groupId: string, userId: string, member: boolean): void {
    const set = this.members.get(groupId) ?? new Set<string>();
    if (member) set.add(userId);
    else set.delete(userId);
    this.members.set(groupId, set);
  }

  private lifecycle(id: string, status: string, eventType: string, path: string): LogEvent[] {
    const user = this.user(id);
    user.status = status;
    return this.record([this.userEvent(eventType, user, path)]);
  }

  private userEvent(eventType: string, user: OktaUserRecord, path: string): LogEvent {
    return logEvent(eventType, [userTarget(user)], `/api/v1/users/${user.id}/${path}`);
  }

  private membershipEvent(eventType: string, group: OktaGroupRecord, user: OktaUserRecord): LogEvent {
    const uri = `/api/v1/groups/${group.id}/users/${user.id}`;
    return logEvent(eventType, [userTarget(user), groupTarget(group)], uri);
  }

  private record(events: LogEvent[]): LogEvent[] {
    for (const event of events) this.log.append(event);
    this.onEvents(events);
    return events;
  }

  private user(id: string): OktaUserRecord {
    const user = this.users.get(id);
    if (!user) throw new Error(`the emulated org has no user ${id}`);
    return user;
  }

  private group(id: string): OktaGroupRecord {
    const group = this.groups.get(id);
    if (!group) throw new Error(`the emulated org has no group ${id}`);
    return group;
  }
}

/** An Okta-like id: a 3-character prefix and 17 more (20 in all). */
function newId(prefix: string): string {
  return prefix + randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 17);
}

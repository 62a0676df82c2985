import {
  enterpriseEvent,
  groupEvent,
  groupValueEvent,
  memberBulkUploadEvent,
  memberEvent,
} from './google-activity-events.js';
import type { ActivityEvent } from './google-audit-log.js';
import {
  newEtag,
  type GroupRecord,
  type MemberRecord,
  type MemberRole,
  type UserRecord,
  type WorkspaceModel,
} from './google-model.js';
import type { ChangeOptions, Recorder } from './google-recorder.js';
import { memberRecord, seedGroup, seedMember, type GroupInput, type MemberInput } from './google-seed.js';

/**
 * Changes to groups and memberships, recorded as Google records them. Group changes are an
 * administrator's (admin log, GROUP_SETTINGS). A membership change is an administrator's (admin
 * log: ADD_GROUP_MEMBER, REMOVE_GROUP_MEMBER, UPDATE_GROUP_MEMBER) or, when made by an owner or
 * manager of the group who is not an administrator, lands in the groups_enterprise log
 * (add_member, remove_member, add_member_role/remove_member_role). Google refuses a membership that
 * would close a cycle; so does this (seed one with google-seed.ts to test a reader against it).
 */

export class GroupControl {
  constructor(
    private readonly model: WorkspaceModel,
    private readonly recorder: Recorder,
  ) {}

  create(input: GroupInput, options?: ChangeOptions): GroupRecord {
    this.recorder.requireAdmin(options);
    const group = seedGroup(this.model, input);
    this.recorder.admin([groupEvent('CREATE_GROUP', group.email)], options);
    return { ...group, aliases: [...group.aliases] };
  }

  update(key: string, patch: { name?: string; description?: string }, options?: ChangeOptions): GroupRecord {
    const group = this.adminGroup(key, options);
    const events: ActivityEvent[] = [];
    if (patch.name !== undefined && patch.name !== group.name) {
      group.name = patch.name;
      events.push(groupValueEvent('CHANGE_GROUP_NAME', group.email, patch.name));
    }
    if (patch.description !== undefined && patch.description !== group.description) {
      group.description = patch.description;
      events.push(groupEvent('CHANGE_GROUP_DESCRIPTION', group.email));
    }
    return this.commit(group, events, options);
  }

  /** A new primary address for the group (its id stays). */
  changeEmail(key: string, newEmail: string, options?: ChangeOptions): GroupRecord {
    const group = this.adminGroup(key, options);
    if (!this.model.ours(newEmail) || this.model.resolve(newEmail))
      throw new Error(`${newEmail} is not free`);
    const old = group.email;
    this.model.unindex(old);
    this.model.index(newEmail, 'group', group.id);
    group.email = newEmail;
    return this.commit(group, [groupValueEvent('CHANGE_GROUP_EMAIL', old, newEmail)], options);
  }

  delete(key: string, options?: ChangeOptions): GroupRecord {
    const group = this.adminGroup(key, options);
    for (const memberId of [...(this.model.members.get(group.id)?.keys() ?? [])])
      this.model.unlink(group.id, memberId);
    for (const parent of [...(this.model.memberOf.get(group.id) ?? [])]) this.model.unlink(parent, group.id);
    for (const address of [group.email, ...group.aliases]) this.model.unindex(address);
    this.model.groups.delete(group.id);
    this.model.members.delete(group.id);
    return this.commit(group, [groupEvent('DELETE_GROUP', group.email)], options);
  }

  addMember(groupKey: string, input: MemberInput, options?: ChangeOptions): MemberRecord {
    const group = this.ours(groupKey);
    const { actor, admin } = this.membershipActor(group, options);
    const member = memberRecord(this.model, input);
    if (this.model.members.get(group.id)?.has(member.id)) {
      throw new Error(`${input.email ?? input.id ?? member.id} is already a member of ${group.email}`);
    }
    if (member.type === 'GROUP' && (member.id === group.id || this.model.within(group.id, member.id))) {
      throw new Error(`adding ${input.email ?? input.id} to ${group.email} would make a membership cycle`);
    }
    this.model.link(group.id, member);
    const email = this.emailOf(member);
    const events = admin
      ? [memberEvent('ADD_GROUP_MEMBER', group.email, email)]
      : [enterpriseEvent('add_member', group.email, { email, role: member.role, type: member.type })];
    this.record(admin, actor, events, options);
    return { ...member };
  }

  removeMember(groupKey: string, memberKey: string, options?: ChangeOptions): MemberRecord {
    const group = this.ours(groupKey);
    const { actor, admin } = this.membershipActor(group, options);
    const member = this.member(group, memberKey);
    const email = this.emailOf(member);
    this.model.unlink(group.id, member.id);
    const events = admin
      ? [memberEvent('REMOVE_GROUP_MEMBER', group.email, email)]
      : [enterpriseEvent('remove_member', group.email, { email, role: member.role, type: member.type })];
    this.record(admin, actor, events, options);
    return { ...member };
  }

  updateMember(groupKey: string, memberKey: string, role: MemberRole, options?: ChangeOptions): MemberRecord {
    const group = this.ours(groupKey);
    const { actor, admin } = this.membershipActor(group, options);
    const member = this.member(group, memberKey);
    if (member.role === role) return { ...member };
    const email = this.emailOf(member);
    const before = { email, role: member.role, type: member.type };
    member.role = role;
    member.etag = newEtag();
    this.model.changed();
    const events = admin
      ? [memberEvent('UPDATE_GROUP_MEMBER', group.email, email, role)]
      : [
          enterpriseEvent('remove_member_role', group.email, before),
          enterpriseEvent('add_member_role', group.email, { ...before, role }),
        ];
    this.record(admin, actor, events, options);
    return { ...member };
  }

  /** A CSV upload of members in the Admin console: one GROUP_MEMBER_BULK_UPLOAD record. */
  bulkAddMembers(groupKey: string, inputs: readonly MemberInput[], options?: ChangeOptions): MemberRecord[] {
    const group = this.adminGroup(groupKey, options);
    const added = inputs.map((input) => ({ ...seedMember(this.model, group.id, input) }));
    this.recorder.admin([memberBulkUploadEvent(group.email, inputs.length, 0)], options);
    return added;
  }

  emailOf(member: MemberRecord): string | undefined {
    if (member.type === 'CUSTOMER') return undefined;
    if (member.externalEmail !== undefined) return member.externalEmail;
    if (member.viaAlias !== undefined) return member.viaAlias;
    return member.type === 'GROUP'
      ? this.model.groups.get(member.id)?.email
      : this.model.users.get(member.id)?.primaryEmail;
  }

  private membershipActor(
    group: GroupRecord,
    options?: ChangeOptions,
  ): { actor: UserRecord; admin: boolean } {
    const actor = this.recorder.actor(options);
    if (actor.isAdmin) return { actor, admin: true };
    const role = this.model.members.get(group.id)?.get(actor.id)?.role;
    if (role !== 'OWNER' && role !== 'MANAGER') {
      throw new Error(
        `${actor.primaryEmail} is neither an administrator nor an owner or manager of ${group.email}`,
      );
    }
    return { actor, admin: false };
  }

  private record(admin: boolean, actor: UserRecord, events: ActivityEvent[], options?: ChangeOptions): void {
    if (admin) this.recorder.admin(events, options);
    else this.recorder.enterprise(actor, events, options);
  }

  private member(group: GroupRecord, key: string): MemberRecord {
    const members = this.model.members.get(group.id);
    const id = members?.has(key) ? key : this.model.resolve(key)?.id;
    const found =
      (id === undefined ? undefined : members?.get(id)) ??
      [...(members?.values() ?? [])].find((m) => m.externalEmail?.toLowerCase() === key.toLowerCase());
    if (!found) throw new Error(`${key} is not a member of ${group.email}`);
    return found;
  }

  private adminGroup(key: string, options?: ChangeOptions): GroupRecord {
    this.recorder.requireAdmin(options);
    return this.ours(key);
  }

  private ours(key: string): GroupRecord {
    const group = this.model.group(key);
    if (!group || group.foreign) throw new Error(`the account has no group ${key}`);
    return group;
  }

  private commit(group: GroupRecord, events: ActivityEvent[], options?: ChangeOptions): GroupRecord {
    if (events.length > 0) {
      this.recorder.admin(events, options);
      group.etag = newEtag();
      this.model.changed();
    }
    return { ...group, aliases: [...group.aliases] };
  }
}

import {
  customFieldEvent,
  moveEvent,
  nicknameEvent,
  userEvent,
  usersBulkUploadEvent,
  userValueEvent,
  type UserEventName,
} from './google-activity-events.js';
import type { ActivityEvent } from './google-audit-log.js';
import type { GoogleClock } from './google-clock.js';
import { newEtag, type ExternalId, type UserRecord, type WorkspaceModel } from './google-model.js';
import type { ChangeOptions, Recorder } from './google-recorder.js';
import { seedUser, type UserInput } from './google-seed.js';

/**
 * Changes to users as an administrator makes them, each recorded in the admin log under Google's
 * event name (google-activity-events.ts), each giving the user a new `etag`. The `id` never
 * changes; a rename changes `primaryEmail` and, unless asked to keep it as an alias, frees the old
 * address (events name addresses, so after a RENAME_USER the old one no longer resolves).
 * Deleting removes the user from every group; undeleting restores the user, not the memberships.
 */

export interface UserPatch {
  givenName?: string;
  familyName?: string;
  orgUnitPath?: string;
  isAdmin?: boolean;
  externalIds?: ExternalId[];
  /** Fields to set, by schema; a field set to null is removed. */
  customSchemas?: Record<string, Record<string, unknown>>;
}

export class UserControl {
  constructor(
    private readonly model: WorkspaceModel,
    private readonly recorder: Recorder,
    private readonly clock: GoogleClock,
  ) {}

  create(input: UserInput, options?: ChangeOptions): UserRecord {
    this.recorder.requireAdmin(options);
    const user = seedUser(this.model, input, this.clock.now());
    this.recorder.admin([userEvent('CREATE_USER', user.primaryEmail)], options);
    return copy(user);
  }

  update(key: string, patch: UserPatch, options?: ChangeOptions): UserRecord {
    const user = this.live(key, options);
    const email = user.primaryEmail;
    const events: ActivityEvent[] = [];
    if (patch.givenName !== undefined && patch.givenName !== user.givenName) {
      user.givenName = patch.givenName;
      events.push(userValueEvent('CHANGE_FIRST_NAME', email, patch.givenName));
    }
    if (patch.familyName !== undefined && patch.familyName !== user.familyName) {
      user.familyName = patch.familyName;
      events.push(userValueEvent('CHANGE_LAST_NAME', email, patch.familyName));
    }
    if (patch.orgUnitPath !== undefined && patch.orgUnitPath !== user.orgUnitPath) {
      events.push(moveEvent(email, user.orgUnitPath, patch.orgUnitPath));
      user.orgUnitPath = patch.orgUnitPath;
    }
    if (patch.isAdmin !== undefined && patch.isAdmin !== user.isAdmin) {
      user.isAdmin = patch.isAdmin;
      events.push(userEvent(patch.isAdmin ? 'GRANT_ADMIN_PRIVILEGE' : 'REVOKE_ADMIN_PRIVILEGE', email));
    }
    if (patch.externalIds !== undefined) {
      user.externalIds = patch.externalIds.map((e) => ({ ...e }));
      events.push(
        userValueEvent('CHANGE_USER_EXTERNAL_ID', email, user.externalIds.map((e) => e.value).join(',')),
      );
    }
    for (const [schema, fields] of Object.entries(patch.customSchemas ?? {})) {
      const current = { ...user.customSchemas[schema] };
      for (const [field, value] of Object.entries(fields)) {
        if (value === null) delete current[field];
        else current[field] = structuredClone(value);
        events.push(customFieldEvent(email, `${schema}.${field}`, value === null ? '' : String(value)));
      }
      user.customSchemas[schema] = current;
    }
    return this.commit(user, events, options);
  }

  rename(key: string, newEmail: string, options: ChangeOptions & { keepOldAsAlias?: boolean } = {}) {
    const user = this.live(key, options);
    const old = user.primaryEmail;
    if (!this.model.ours(newEmail)) throw new Error(`${newEmail} is not in the account's domains`);
    if (this.model.resolve(newEmail)) throw new Error(`the address ${newEmail} is already taken`);
    this.model.unindex(old);
    this.model.index(newEmail, 'user', user.id);
    user.primaryEmail = newEmail;
    if (options.keepOldAsAlias) {
      user.aliases.push(old);
      this.model.index(old, 'user', user.id);
    }
    return this.commit(user, [userValueEvent('RENAME_USER', old, newEmail)], options);
  }

  suspend(key: string, options?: ChangeOptions): UserRecord {
    return this.flag(key, 'suspended', true, 'SUSPEND_USER', options);
  }

  unsuspend(key: string, options?: ChangeOptions): UserRecord {
    return this.flag(key, 'suspended', false, 'UNSUSPEND_USER', options);
  }

  archive(key: string, options?: ChangeOptions): UserRecord {
    return this.flag(key, 'archived', true, 'ARCHIVE_USER', options);
  }

  unarchive(key: string, options?: ChangeOptions): UserRecord {
    return this.flag(key, 'archived', false, 'UNARCHIVE_USER', options);
  }

  delete(key: string, options?: ChangeOptions): UserRecord {
    const user = this.live(key, options);
    for (const address of [user.primaryEmail, ...user.aliases]) this.model.unindex(address);
    for (const groupId of [...(this.model.memberOf.get(user.id) ?? [])]) this.model.unlink(groupId, user.id);
    this.model.users.delete(user.id);
    user.deletionTime = this.clock.now();
    this.model.deleted.set(user.id, user);
    return this.commit(user, [userEvent('DELETE_USER', user.primaryEmail)], options);
  }

  undelete(id: string, options?: ChangeOptions): UserRecord {
    this.recorder.requireAdmin(options);
    const user = this.model.deleted.get(id);
    if (!user) throw new Error(`no deleted user ${id}`);
    const addresses = [user.primaryEmail, ...user.aliases];
    if (addresses.some((a) => this.model.resolve(a))) throw new Error(`an address of ${id} was taken since`);
    for (const address of addresses) this.model.index(address, 'user', id);
    this.model.deleted.delete(id);
    delete user.deletionTime;
    this.model.users.set(id, user);
    return this.commit(user, [userEvent('UNDELETE_USER', user.primaryEmail)], options);
  }

  addAlias(key: string, alias: string, options?: ChangeOptions): UserRecord {
    const user = this.live(key, options);
    if (!this.model.ours(alias) || this.model.resolve(alias))
      throw new Error(`the alias ${alias} is not free`);
    this.model.index(alias, 'user', user.id);
    user.aliases.push(alias);
    return this.commit(user, [nicknameEvent('ADD_NICKNAME', user.primaryEmail, alias)], options);
  }

  removeAlias(key: string, alias: string, options?: ChangeOptions): UserRecord {
    const user = this.live(key, options);
    const at = user.aliases.findIndex((a) => a.toLowerCase() === alias.toLowerCase());
    if (at < 0) throw new Error(`${alias} is not an alias of ${user.primaryEmail}`);
    user.aliases.splice(at, 1);
    this.model.unindex(alias);
    return this.commit(user, [nicknameEvent('REMOVE_NICKNAME', user.primaryEmail, alias)], options);
  }

  /** A CSV upload in the Admin console: the users, and one USERS_BULK_UPLOAD record for them all. */
  bulkUpload(inputs: readonly UserInput[], options?: ChangeOptions): UserRecord[] {
    this.recorder.requireAdmin(options);
    const users = inputs.map((input) => copy(seedUser(this.model, input, this.clock.now())));
    this.recorder.admin([usersBulkUploadEvent(inputs.length, 0)], options);
    return users;
  }

  private flag(
    key: string,
    field: 'suspended' | 'archived',
    value: boolean,
    name: UserEventName,
    options?: ChangeOptions,
  ) {
    const user = this.live(key, options);
    if (user[field] === value) return copy(user);
    user[field] = value;
    return this.commit(user, [userEvent(name, user.primaryEmail)], options);
  }

  /** The live user a change is about, once the actor is known to be an administrator. */
  private live(key: string, options?: ChangeOptions): UserRecord {
    this.recorder.requireAdmin(options);
    const user = this.model.user(key);
    if (!user) throw new Error(`no live user ${key} in the account`);
    return user;
  }

  private commit(user: UserRecord, events: ActivityEvent[], options?: ChangeOptions): UserRecord {
    if (events.length === 0) return copy(user);
    this.recorder.admin(events, options);
    user.etag = newEtag();
    this.model.changed();
    return copy(user);
  }
}

function copy(user: UserRecord): UserRecord {
  return structuredClone(user);
}

import type { ActivityEvent, AuditLog } from './google-audit-log.js';
import type { UserRecord, WorkspaceModel } from './google-model.js';

/**
 * Who made a change, and which log it lands in: a change by an administrator is in the admin log
 * ("a history of every task performed in your Google Admin console", support.google.com/a/answer/
 * 4579579); a membership change by a group's owner or manager who is not an administrator is in
 * the groups_enterprise log instead.
 */

/** How a change is made: by whom (a user's address; the account's administrator by default). */
export interface ChangeOptions {
  by?: string;
  /** This record's own visibility lag, in ms (instead of one drawn between the log's bounds). */
  visibleAfterMs?: number;
}

export class Recorder {
  constructor(
    private readonly model: WorkspaceModel,
    private readonly log: AuditLog,
    readonly adminEmail: string,
  ) {}

  /** The acting user; throws for an address that is no live user of the account. */
  actor(options: ChangeOptions = {}): UserRecord {
    const email = options.by ?? this.adminEmail;
    const user = this.model.user(email);
    if (!user) throw new Error(`no live user ${email} in the account to make the change`);
    return user;
  }

  /** The acting administrator; throws (before anything changes) when the actor is not one. */
  requireAdmin(options: ChangeOptions = {}): UserRecord {
    const actor = this.actor(options);
    if (!actor.isAdmin) throw new Error(`${actor.primaryEmail} is not an administrator`);
    return actor;
  }

  /** Records an administrator's change. */
  admin(events: ActivityEvent[], options: ChangeOptions = {}): void {
    this.append('admin', this.requireAdmin(options), events, options);
  }

  /** Records a membership change by a group's owner or manager (not an administrator). */
  enterprise(actor: UserRecord, events: ActivityEvent[], options: ChangeOptions = {}): void {
    this.append('groups_enterprise', actor, events, options);
  }

  private append(
    application: 'admin' | 'groups_enterprise',
    actor: UserRecord,
    events: ActivityEvent[],
    options: ChangeOptions,
  ): void {
    const where = options.visibleAfterMs === undefined ? {} : { visibleAfterMs: options.visibleAfterMs };
    for (const event of events) {
      this.log.append(application, { email: actor.primaryEmail, profileId: actor.id }, [event], where);
    }
  }
}

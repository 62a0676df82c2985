import type { DesiredUser, PersonName } from '../../domain/identity.js';
import type { OktaEventJobData, OktaTargetRef } from '../../queue/okta-events-job.js';
import type { ChangeOptions, DesiredChange } from '../../domain/desired-change.js';
import type { OktaGroup, OktaUser } from './okta-api.client.js';

/**
 * What an Okta event changes in the desired state (pure: the job gathers the facts first). Okta
 * ids are the desired-state ids. User and group changes carry `eventTime` = `published`, so an
 * event older than the last one applied to that identity changes nothing (Okta may deliver out of
 * order). Membership changes do not: events about different members of one group are independent,
 * and a per-group time would drop the older of two concurrent adds. With enrichment their order
 * does not matter (the job asks Okta whether the user is a member now); without it they apply in
 * the order they arrive.
 */

export interface OktaFacts {
  /** The user from Okta's Users API; null when Okta answered 404; undefined when not asked. */
  oktaUser?: OktaUser | null;
  oktaGroup?: OktaGroup | null;
  /** Whether Okta lists the user in the group now (membership events, with enrichment). */
  member?: boolean;
  /** The user as the desired state holds it (used without enrichment). */
  current?: DesiredUser;
}

export type OktaPlan = { changes: DesiredChange[] } | { skip: string };

/** Okta user statuses that mean an account that exists and may sign in (or be recovered). */
const ACTIVE_STATUSES = new Set(['ACTIVE', 'PROVISIONED', 'RECOVERY', 'PASSWORD_EXPIRED', 'LOCKED_OUT']);

const ACTIVE_AFTER: Partial<Record<OktaEventJobData['eventType'], boolean>> = {
  'user.lifecycle.activate': true,
  'user.lifecycle.unsuspend': true,
  'user.lifecycle.deactivate': false,
  'user.lifecycle.suspend': false,
};

export function changesForOktaEvent(event: OktaEventJobData, facts: OktaFacts): OktaPlan {
  const ordered: ChangeOptions = { ...common(event), eventTime: event.published };
  const { user, group } = event;
  switch (event.eventType) {
    case 'user.lifecycle.delete.initiated':
    case 'user.lifecycle.delete.completed':
    case 'user.lifecycle.delete':
      return user ? one({ op: 'deleteUser', id: user.id, ...ordered }) : { skip: 'no user' };
    case 'group.lifecycle.delete':
      return group ? one({ op: 'deleteGroup', id: group.id, ...ordered }) : { skip: 'no group' };
    case 'group.lifecycle.create':
    case 'group.profile.updated':
      return group ? groupPlan(group, facts, ordered) : { skip: 'no group' };
    case 'group.user_membership.add':
    case 'group.user_membership.remove':
      return user && group ? membershipPlan(event, user, group, facts) : { skip: 'no user or group' };
    default:
      return user ? userPlan(event, user, facts, ordered) : { skip: 'no user' };
  }
}

function userPlan(
  event: OktaEventJobData,
  target: OktaTargetRef,
  facts: OktaFacts,
  options: ChangeOptions,
): OktaPlan {
  if (facts.oktaUser === null) return { skip: 'Okta no longer has this user; its delete event will follow' };
  const desired = facts.oktaUser ? userFromOkta(facts.oktaUser) : userFromEvent(event, target, facts.current);
  if (typeof desired === 'string') return { skip: desired };
  return one({ op: 'upsertUser', user: desired, ...options });
}

function groupPlan(target: OktaTargetRef, facts: OktaFacts, options: ChangeOptions): OktaPlan {
  if (facts.oktaGroup === null)
    return { skip: 'Okta no longer has this group; its delete event will follow' };
  const displayName = facts.oktaGroup?.profile.name ?? target.displayName;
  if (!displayName) return { skip: 'the event carries no group name' };
  return one({ op: 'upsertGroup', group: { id: target.id, displayName }, ...options });
}

function membershipPlan(
  event: OktaEventJobData,
  user: OktaTargetRef,
  group: OktaTargetRef,
  facts: OktaFacts,
): OktaPlan {
  const add = facts.member ?? event.eventType === 'group.user_membership.add';
  const op = add ? 'addMembers' : 'removeMembers';
  return one({ op, groupId: group.id, userIds: [user.id], ...common(event) });
}

/** The desired user from Okta's Users API: `profile.login` is the userName. */
export function userFromOkta(user: OktaUser): DesiredUser {
  const { login, email, firstName, lastName } = user.profile;
  const name = personName(firstName ?? undefined, lastName ?? undefined);
  return {
    id: user.id,
    userName: login,
    ...(name ? { name } : {}),
    ...(email ? { emails: [{ value: email, primary: true }] } : {}),
    active: ACTIVE_STATUSES.has(user.status.toUpperCase()),
  };
}

/**
 * The desired user from what the event carries: userName = `alternateId` (the Okta login), name
 * from `displayName`, the login as primary e-mail when it is an address. `active` follows the
 * event; a created user stays inactive until its activation (Okta creates users STAGED unless it
 * activates them, which sends `user.lifecycle.activate` too); a profile update keeps the current
 * state and does not create a user the bridge does not hold.
 */
export function userFromEvent(
  event: OktaEventJobData,
  target: OktaTargetRef,
  current: DesiredUser | undefined,
): DesiredUser | string {
  const active =
    ACTIVE_AFTER[event.eventType] ??
    (event.eventType === 'user.lifecycle.create' ? (current?.active ?? false) : current?.active);
  if (active === undefined) return 'a profile update for a user the bridge does not hold (no enrichment)';
  const userName = target.alternateId ?? current?.userName;
  if (!userName) return 'the event carries no alternateId';
  const name = splitDisplayName(target.displayName) ?? current?.name;
  const emails = isEmail(userName) ? [{ value: userName, primary: true }] : current?.emails;
  return {
    id: target.id,
    userName,
    ...(current?.externalId ? { externalId: current.externalId } : {}),
    ...(name ? { name } : {}),
    ...(emails ? { emails } : {}),
    active,
  };
}

/**
 * "Luca da Silva" → given "Luca", family "da Silva": the first word is the given name, the rest
 * the family name; a single word is a given name. (Enrichment gives Okta's exact fields.)
 */
export function splitDisplayName(displayName: string | undefined): PersonName | undefined {
  const words = (displayName ?? '').trim().split(/\s+/).filter(Boolean);
  const [given, ...family] = words;
  if (given === undefined) return undefined;
  return personName(given, family.join(' '));
}

function personName(givenName: string | undefined, familyName: string | undefined): PersonName | undefined {
  const name: PersonName = {
    ...(givenName ? { givenName } : {}),
    ...(familyName ? { familyName } : {}),
  };
  return Object.keys(name).length > 0 ? name : undefined;
}

function isEmail(value: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

function common(event: OktaEventJobData): ChangeOptions {
  return {
    eventIndex: 0,
    mode: 'force',
    signal: { source: 'okta', detail: `${event.eventType} ${event.uuid}` },
  };
}

function one(change: DesiredChange): OktaPlan {
  return { changes: [change] };
}

import type { DesiredUser, PersonName } from '../../domain/identity.js';
import type { SourceChange } from '../../domain/input.js';
import { attachFacts, itemFacts, type GroupRef } from '../../domain/policy-context.js';
import type { OktaEventJobData, OktaTargetRef } from '../../queue/okta-events-job.js';
import type { OktaGroup, OktaUser } from './okta-api.client.js';

/**
 * What an Okta event says changed, as the okta input's source states it (pure: the facts are
 * gathered first): the same items a full read of Okta gives, their Okta attributes attached, for
 * sync/ to apply okta's scope and mapping to (source-changes.ts) — for a hook and for the System
 * Log's change read alike. Okta ids are the desired-state ids. Each change names its event (`uuid`,
 * applied once whichever path brings it first) and its `published` time: a user or group change
 * older than the last one applied to that identity changes nothing (Okta may deliver out of
 * order). Membership changes carry no time: events about different members of one group are
 * independent, and a per-group time would drop the older of two concurrent adds. With enrichment
 * their order does not matter (Okta is asked whether the user is a member now); without it they
 * apply in the order they arrive.
 */

export interface OktaFacts {
  /** The user from Okta's Users API; null when Okta answered 404; undefined when not asked. */
  oktaUser?: OktaUser | null;
  oktaGroup?: OktaGroup | null;
  /** Whether Okta lists the user in the group now (membership events, with enrichment). */
  member?: boolean;
  /** The user as the desired state holds it (used without enrichment). */
  current?: DesiredUser;
  /** The user's OKTA_GROUP groups, when a scope or mapping reads membership (with enrichment). */
  groups?: readonly GroupRef[];
}

export type OktaPlan = { changes: SourceChange[] } | { skip: string };

/** Okta user statuses that mean an account that exists and may sign in (or be recovered). */
const ACTIVE_STATUSES = new Set(['ACTIVE', 'PROVISIONED', 'RECOVERY', 'PASSWORD_EXPIRED', 'LOCKED_OUT']);

const ACTIVE_AFTER: Partial<Record<OktaEventJobData['eventType'], boolean>> = {
  'user.lifecycle.activate': true,
  'user.lifecycle.unsuspend': true,
  'user.lifecycle.deactivate': false,
  'user.lifecycle.suspend': false,
};

export function changesForOktaEvent(event: OktaEventJobData, facts: OktaFacts): OktaPlan {
  const { user, group } = event;
  const one = (change: SourceChange): OktaPlan => ({ changes: [{ ...change, ...about(event) }] });
  switch (event.eventType) {
    case 'user.lifecycle.delete.initiated':
    case 'user.lifecycle.delete.completed':
    case 'user.lifecycle.delete':
      return user ? one({ op: 'remove', kind: 'users', id: user.id }) : { skip: 'no user' };
    case 'group.lifecycle.delete':
      return group ? one({ op: 'remove', kind: 'groups', id: group.id }) : { skip: 'no group' };
    case 'group.lifecycle.create':
    case 'group.profile.updated':
      return group ? groupPlan(event, group, facts) : { skip: 'no group' };
    case 'group.user_membership.add':
    case 'group.user_membership.remove':
      return user && group ? membershipPlan(event, user, group, facts) : { skip: 'no user or group' };
    default:
      return user ? userPlan(event, user, facts) : { skip: 'no user' };
  }
}

/** The event a change comes from: applied once (its uuid), not over a newer one (its time). */
function about(event: OktaEventJobData): Pick<SourceChange, 'event' | 'detail'> {
  return {
    event: { id: event.uuid, eventTime: event.published },
    detail: `${event.eventType} ${event.uuid}`,
  };
}

function userPlan(event: OktaEventJobData, target: OktaTargetRef, facts: OktaFacts): OktaPlan {
  if (facts.oktaUser === null) return { skip: 'Okta no longer has this user; its delete event will follow' };
  const item = facts.oktaUser
    ? oktaUserItem(facts.oktaUser, facts.groups)
    : userFromEvent(event, target, facts.current);
  if (typeof item === 'string') return { skip: item };
  return {
    changes: [{ op: 'upsert', kind: 'users', item, label: target.alternateId ?? target.id, ...about(event) }],
  };
}

/** A user of Okta's Users API as the full read makes it, its Okta attributes (and groups) attached. */
export function oktaUserItem(user: OktaUser, groups?: readonly GroupRef[]): Record<string, unknown> {
  return attachFacts({ ...userFromOkta(user) }, itemFacts(user, groups ? [...groups] : []));
}

function groupPlan(event: OktaEventJobData, target: OktaTargetRef, facts: OktaFacts): OktaPlan {
  if (facts.oktaGroup === null)
    return { skip: 'Okta no longer has this group; its delete event will follow' };
  const displayName = facts.oktaGroup?.profile.name ?? target.displayName;
  if (!displayName) return { skip: 'the event carries no group name' };
  // No members: a group event says nothing of them, and the group keeps those it has.
  const item = { id: target.id, displayName };
  return { changes: [{ op: 'upsert', kind: 'groups', item, label: displayName, ...about(event) }] };
}

function membershipPlan(
  event: OktaEventJobData,
  user: OktaTargetRef,
  group: OktaTargetRef,
  facts: OktaFacts,
): OktaPlan {
  const add = facts.member ?? event.eventType === 'group.user_membership.add';
  const members: SourceChange = {
    op: 'members',
    groupId: group.id,
    add: add ? [user.id] : [],
    remove: add ? [] : [user.id],
    ...about(event),
  };
  // A scope or mapping reading membership sees the user's groups change: the user is read again.
  if (!facts.oktaUser) return { changes: [members] };
  const item = oktaUserItem(facts.oktaUser, facts.groups);
  return {
    changes: [
      { op: 'upsert', kind: 'users', item, label: user.alternateId ?? user.id, ...about(event) },
      members,
    ],
  };
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

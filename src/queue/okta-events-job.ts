import { createHash } from 'node:crypto';

/**
 * An Okta event as the okta-events queue carries it: only what the job needs, read from one entry
 * of an Event Hook delivery's `data.events[]` (the rest of Okta's LogEvent is not kept).
 */

export const OKTA_EVENTS_QUEUE = 'okta-events';

export const OKTA_USER_EVENTS = [
  'user.lifecycle.create',
  'user.lifecycle.activate',
  'user.lifecycle.deactivate',
  'user.lifecycle.suspend',
  'user.lifecycle.unsuspend',
  'user.account.update_profile',
] as const;

/** Okta's catalog names the deletion `user.lifecycle.delete.initiated`; the others are accepted too. */
export const OKTA_USER_DELETE_EVENTS = [
  'user.lifecycle.delete.initiated',
  'user.lifecycle.delete.completed',
  'user.lifecycle.delete',
] as const;

export const OKTA_MEMBERSHIP_EVENTS = ['group.user_membership.add', 'group.user_membership.remove'] as const;

export const OKTA_GROUP_EVENTS = ['group.lifecycle.create', 'group.profile.updated'] as const;

export const OKTA_GROUP_DELETE_EVENTS = ['group.lifecycle.delete'] as const;

export type OktaEventType =
  | (typeof OKTA_USER_EVENTS)[number]
  | (typeof OKTA_USER_DELETE_EVENTS)[number]
  | (typeof OKTA_MEMBERSHIP_EVENTS)[number]
  | (typeof OKTA_GROUP_EVENTS)[number]
  | (typeof OKTA_GROUP_DELETE_EVENTS)[number];

/** A `target[]` entry: an Okta user (`User`) or group (`UserGroup`). */
export interface OktaTargetRef {
  id: string;
  alternateId?: string;
  displayName?: string;
}

export interface OktaEventJobData {
  uuid: string;
  eventType: OktaEventType;
  /** `published`, in ms since the epoch. */
  published: number;
  user?: OktaTargetRef;
  group?: OktaTargetRef;
}

/**
 * The job id of an Okta event: a redelivered event (same `uuid`) finds its job and adds nothing.
 * BullMQ refuses custom ids containing ':' or made of digits only, hence a prefixed digest.
 */
export function oktaEventJobId(uuid: string): string {
  return `okta-${createHash('sha256').update(uuid).digest('hex').slice(0, 32)}`;
}

/** What processing an Okta event did (the job's return value). */
export interface OktaEventOutcome {
  result: string;
  reason?: string;
}

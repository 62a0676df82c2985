import { z } from 'zod';
import { boundedEventTime } from '../../domain/event-time.js';
import {
  OKTA_GROUP_DELETE_EVENTS,
  OKTA_GROUP_EVENTS,
  OKTA_MEMBERSHIP_EVENTS,
  OKTA_USER_DELETE_EVENTS,
  OKTA_USER_EVENTS,
  type OktaEventJobData,
  type OktaEventType,
  type OktaTargetRef,
} from '../../queue/okta-events-job.js';

/**
 * Reading an Okta Event Hook delivery (`data.events[]`, each a System Log LogEvent). Only what a
 * job needs is checked here, and anything unexpected is reported as a reason to skip the event,
 * never as an error: Okta does not retry a 4xx and would drop the rest of the delivery.
 */

const optionalText = z
  .string()
  .nullish()
  .transform((v) => (v === null || v === undefined || v.trim() === '' ? undefined : v));

const targetSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  alternateId: optionalText,
  displayName: optionalText,
});

const eventSchema = z.object({
  uuid: z.string().min(1),
  published: z.string(),
  eventType: z.string(),
  outcome: z.object({ result: z.string().nullish() }).nullish(),
  target: z.array(z.unknown()).nullish(),
});

/** Outcomes that say the action did not happen (Okta's LogOutcome.result, compared in any case). */
const NOT_DONE = new Set(['FAILURE', 'DENY', 'SKIPPED', 'CHALLENGE']);

type Needs = { user: boolean; group: boolean };
const NEEDS = new Map<string, Needs>([
  ...[...OKTA_USER_EVENTS, ...OKTA_USER_DELETE_EVENTS].map((t) => [t, { user: true, group: false }] as const),
  ...OKTA_MEMBERSHIP_EVENTS.map((t) => [t, { user: true, group: true }] as const),
  ...[...OKTA_GROUP_EVENTS, ...OKTA_GROUP_DELETE_EVENTS].map(
    (t) => [t, { user: false, group: true }] as const,
  ),
]);

export type OktaEventRead =
  { ok: true; job: OktaEventJobData } | { ok: false; reason: string; uuid?: string; eventType?: string };

/** The `data.events` array of a delivery, or undefined when the body has none. */
export function deliveryEvents(body: unknown): unknown[] | undefined {
  const data = typeof body === 'object' && body !== null && 'data' in body ? body.data : undefined;
  const events = typeof data === 'object' && data !== null && 'events' in data ? data.events : undefined;
  return Array.isArray(events) ? (events as unknown[]) : undefined;
}

export function isHandledOktaEvent(eventType: string): eventType is OktaEventType {
  return NEEDS.has(eventType);
}

/**
 * Reads one delivered event into job data, or says why it is skipped. `published` is bounded by
 * `now` (domain/event-time.ts): an event dated ahead of the bridge's clock would otherwise make
 * every later event about its user or group look older, and be ignored.
 */
export function readOktaEvent(raw: unknown, now: number = Date.now()): OktaEventRead {
  const parsed = eventSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, reason: 'not an Okta event (uuid, published, eventType)' };
  const { uuid, eventType, outcome } = parsed.data;
  const about = { uuid, eventType };
  if (!isHandledOktaEvent(eventType)) return { ok: false, reason: 'event type not handled', ...about };
  const result = outcome?.result?.toUpperCase();
  if (result !== undefined && NOT_DONE.has(result)) {
    return { ok: false, reason: `outcome ${result}: nothing happened`, ...about };
  }
  const stated = Date.parse(parsed.data.published);
  if (Number.isNaN(stated)) return { ok: false, reason: 'published is not a date', ...about };
  const published = boundedEventTime(stated, now);
  const targets = (parsed.data.target ?? []).flatMap((t) => {
    const target = targetSchema.safeParse(t);
    return target.success ? [target.data] : [];
  });
  const user = pick(targets, 'User');
  const group = pick(targets, 'UserGroup');
  const needs = NEEDS.get(eventType) ?? { user: false, group: false };
  if ((needs.user && !user) || (needs.group && !group)) {
    const missing = [needs.user && !user ? 'User' : '', needs.group && !group ? 'UserGroup' : ''];
    return { ok: false, reason: `no ${missing.filter(Boolean).join(' and ')} target`, ...about };
  }
  return {
    ok: true,
    job: { uuid, eventType, published, ...(needs.user ? { user } : {}), ...(needs.group ? { group } : {}) },
  };
}

function pick(targets: readonly z.output<typeof targetSchema>[], type: string): OktaTargetRef | undefined {
  const found = targets.find((t) => t.type.toLowerCase() === type.toLowerCase());
  if (!found) return undefined;
  return {
    id: found.id,
    ...(found.alternateId ? { alternateId: found.alternateId } : {}),
    ...(found.displayName ? { displayName: found.displayName } : {}),
  };
}

import { isBridgeError } from '../../domain/errors.js';
import type { DesiredUser } from '../../domain/identity.js';
import type { Logger } from '../../ops/logger.js';
import type { OktaEventJobData, OktaEventOutcome } from '../../queue/okta-events-job.js';
import type { DesiredStateApi } from '../desired-state.api.js';
import type { OktaDirectory } from './okta-api.client.js';
import { changesForOktaEvent, type OktaFacts } from './okta-event.changes.js';

/** Okta event uuids are remembered this long by the store (a redelivery is skipped). */
export const OKTA_EVENT_TTL_SECONDS = 24 * 3600;

export interface OktaEventProcessorDeps {
  api: DesiredStateApi;
  /** The desired state of a user, for events that carry only part of it (no enrichment). */
  readUser(id: string): Promise<DesiredUser | undefined>;
  /** Okta's API when OKTA_ORG_URL and OKTA_API_TOKEN are set; without it, events carry the data. */
  okta?: OktaDirectory;
  logger: Logger;
}

/**
 * Processes one queued Okta event: gathers what it needs (Okta's current profile with enrichment,
 * else the desired state), applies the change through the DesiredStateApi with the event's `uuid`
 * (so a redelivery changes nothing) and its `published` time (so an older event does not undo a
 * newer one). Okta's 429 is thrown as `rate_limited` for the queue's worker to pause the queue.
 */
export function oktaEventProcessor(
  deps: OktaEventProcessorDeps,
): (event: OktaEventJobData) => Promise<OktaEventOutcome> {
  return async (event) => {
    const facts = await gatherFacts(deps, event);
    const plan = changesForOktaEvent(event, facts);
    const about = { uuid: event.uuid, eventType: event.eventType };
    if ('skip' in plan) {
      deps.logger.info({ ...about, reason: plan.skip }, 'okta event skipped');
      return { result: 'skipped', reason: plan.skip };
    }
    // Written as the `okta` input: it owns what it creates and changes nothing another input owns.
    const applied = await deps.api.apply(plan.changes, {
      owner: 'okta',
      events: { source: 'okta', ids: [event.uuid], ttlSeconds: OKTA_EVENT_TTL_SECONDS },
    });
    const result = applied.duplicates.length > 0 ? 'duplicate' : (applied.results[0] ?? 'unchanged');
    deps.logger.info({ ...about, result }, `okta ${event.eventType} ${result}`);
    return { result };
  };
}

/**
 * Okta's answers when enrichment is configured. A rate limit is thrown (the worker pauses the
 * queue, no attempt spent); an Okta API that is down fails the attempt (retried with back-off); a
 * refused token or an odd answer is logged and the event's own data is used instead, so events
 * keep flowing.
 */
async function gatherFacts(deps: OktaEventProcessorDeps, event: OktaEventJobData): Promise<OktaFacts> {
  if (!deps.okta) return localFacts(deps, event);
  try {
    return await oktaFacts(deps.okta, event);
  } catch (error) {
    if (isBridgeError(error, 'rate_limited') || !isBridgeError(error) || error.retryable) throw error;
    deps.logger.error({ uuid: event.uuid, err: error.message }, 'Okta API refused; using the event data');
    return localFacts(deps, event);
  }
}

async function oktaFacts(okta: OktaDirectory, event: OktaEventJobData): Promise<OktaFacts> {
  const { user, group } = event;
  switch (kindOf(event)) {
    case 'user':
      return user ? { oktaUser: (await okta.getUser(user.id)) ?? null } : {};
    case 'group':
      return group ? { oktaGroup: (await okta.getGroup(group.id)) ?? null } : {};
    case 'membership': {
      if (!user || !group) return {};
      const groups = await okta.listUserGroups(user.id);
      return { member: (groups ?? []).some((g) => g.id === group.id) };
    }
    default:
      return {};
  }
}

async function localFacts(deps: OktaEventProcessorDeps, event: OktaEventJobData): Promise<OktaFacts> {
  if (kindOf(event) !== 'user' || !event.user) return {};
  const current = await deps.readUser(event.user.id);
  return current ? { current } : {};
}

function kindOf(event: OktaEventJobData): 'user' | 'group' | 'membership' | 'delete' {
  if (event.eventType.includes('.delete')) return 'delete';
  if (event.eventType.startsWith('group.user_membership.')) return 'membership';
  if (event.eventType.startsWith('group.')) return 'group';
  return 'user';
}

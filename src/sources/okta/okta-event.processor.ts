import type { BatchResult } from '../../domain/desired-change.js';
import { isBridgeError } from '../../domain/errors.js';
import type { DesiredUser } from '../../domain/identity.js';
import type { SourceChange } from '../../domain/input.js';
import type { Logger } from '../../ops/logger.js';
import type { OktaEventJobData, OktaEventOutcome } from '../../queue/okta-events-job.js';
import type { OktaDirectory } from './okta-api.client.js';
import { changesForOktaEvent, type OktaFacts, type OktaPlan } from './okta-event.changes.js';

export interface OktaEventReadDeps {
  /** The desired state of a user, for events that carry only part of it (no enrichment). */
  readUser?(id: string): Promise<DesiredUser | undefined>;
  /** Okta's API when OKTA_ORG_URL and OKTA_API_TOKEN are set; without it, events carry the data. */
  okta?: OktaDirectory;
  /** okta's scope or mapping reads group membership: a user's groups are read with it. */
  readsMembership?: boolean;
  logger?: Logger;
}

export interface OktaEventProcessorDeps extends OktaEventReadDeps {
  /** Applies the event's changes as the okta input's, under okta's scope and mapping (sync/). */
  apply(changes: readonly SourceChange[]): Promise<BatchResult>;
}

/**
 * What one Okta event says changed: the facts it needs gathered (Okta's current state with
 * enrichment, else the desired state), then the source's changes (okta-event.changes.ts). Okta's
 * 429 is thrown as `rate_limited` (the hooks' worker pauses its queue; the change read waits).
 */
export async function readOktaEventChanges(
  deps: OktaEventReadDeps,
  event: OktaEventJobData,
): Promise<OktaPlan> {
  return changesForOktaEvent(event, await gatherFacts(deps, event));
}

/**
 * Processes one queued Okta event (a hook's): its changes applied as the okta input's — under
 * okta's scope and mapping, each event once (its `uuid`: a redelivery, or the System Log's change
 * read that brought it first, changes nothing) and never over a newer one (its `published` time).
 */
export function oktaEventProcessor(
  deps: OktaEventProcessorDeps,
): (event: OktaEventJobData) => Promise<OktaEventOutcome> {
  return async (event) => {
    const plan = await readOktaEventChanges(deps, event);
    const about = { uuid: event.uuid, eventType: event.eventType };
    if ('skip' in plan) {
      deps.logger?.info({ ...about, reason: plan.skip }, 'okta event skipped');
      return { result: 'skipped', reason: plan.skip };
    }
    const applied = await deps.apply(plan.changes);
    const result = applied.duplicates.length > 0 ? 'duplicate' : (applied.results.at(-1) ?? 'skipped');
    deps.logger?.info({ ...about, result }, `okta ${event.eventType} ${result}`);
    return { result };
  };
}

/**
 * Okta's answers when enrichment is configured. A rate limit is thrown (the worker pauses the
 * queue, no attempt spent); an Okta API that is down fails the attempt (retried with back-off); a
 * refused token or an odd answer is logged and the event's own data is used instead, so events
 * keep flowing.
 */
async function gatherFacts(deps: OktaEventReadDeps, event: OktaEventJobData): Promise<OktaFacts> {
  if (!deps.okta) return localFacts(deps, event);
  try {
    return await oktaFacts(deps.okta, event, deps.readsMembership === true);
  } catch (error) {
    if (isBridgeError(error, 'rate_limited') || !isBridgeError(error) || error.retryable) throw error;
    deps.logger?.error({ uuid: event.uuid, err: error.message }, 'Okta API refused; using the event data');
    return localFacts(deps, event);
  }
}

async function oktaFacts(
  okta: OktaDirectory,
  event: OktaEventJobData,
  membership: boolean,
): Promise<OktaFacts> {
  const { user, group } = event;
  switch (kindOf(event)) {
    case 'user':
      if (!user) return {};
      return {
        oktaUser: (await okta.getUser(user.id)) ?? null,
        ...(membership ? await groupsOf(okta, user.id) : {}),
      };
    case 'group':
      return group ? { oktaGroup: (await okta.getGroup(group.id)) ?? null } : {};
    case 'membership': {
      if (!user || !group) return {};
      const { groups } = await groupsOf(okta, user.id);
      const member = groups.some((g) => g.id === group.id);
      const oktaUser = membership ? await okta.getUser(user.id) : undefined;
      return { member, ...(oktaUser ? { oktaUser, groups } : {}) };
    }
    default:
      return {};
  }
}

/** A user's OKTA_GROUP groups, as a full read's membership pass finds them. */
async function groupsOf(
  okta: OktaDirectory,
  userId: string,
): Promise<{ groups: { id: string; name: string }[] }> {
  const groups = (await okta.listUserGroups(userId)) ?? [];
  return {
    groups: groups
      .filter((g) => !g.type || g.type === 'OKTA_GROUP')
      .map((g) => ({ id: g.id, name: g.profile.name })),
  };
}

async function localFacts(deps: OktaEventReadDeps, event: OktaEventJobData): Promise<OktaFacts> {
  if (kindOf(event) !== 'user' || !event.user) return {};
  const current = await deps.readUser?.(event.user.id);
  return current ? { current } : {};
}

function kindOf(event: OktaEventJobData): 'user' | 'group' | 'membership' | 'delete' {
  if (event.eventType.includes('.delete')) return 'delete';
  if (event.eventType.startsWith('group.user_membership.')) return 'membership';
  if (event.eventType.startsWith('group.')) return 'group';
  return 'user';
}

import type { BatchOptions, BatchResult, DesiredChange, Owner } from '../domain/desired-change.js';
import type { CompiledPolicy } from '../domain/identity-policy.js';
import type { SourceChange } from '../domain/input.js';
import { mapSourceChanges } from './source-changes.js';

/** Applied event ids are remembered this long: a later delivery of the same event changes nothing. */
export const EVENT_TTL_SECONDS = 24 * 3600;

/**
 * Applies what an input's pushed event says changed (an Okta hook) as its change read would
 * (source-changes.ts): under the input's scope and mapping — a user its scope leaves out is never
 * written — each event once, whichever path brings it first. A hook says what it says: a group
 * change is applied as told, even where a scope reading membership would need more (the next
 * change read or full read follows it).
 */
export async function applyPushedChanges(
  api: { apply(changes: readonly DesiredChange[], options?: BatchOptions): Promise<BatchResult> },
  owner: Owner,
  policy: CompiledPolicy,
  changes: readonly SourceChange[],
): Promise<BatchResult> {
  const signal = owner === 'okta' ? 'okta' : 'directory';
  const mapped = mapSourceChanges(policy, changes, {
    detail: 'pushed change',
    signal,
    membershipKnown: true,
  });
  if (mapped.changes.length === 0) return { results: [], duplicates: [], touched: [] };
  const events =
    mapped.events.length === 0
      ? {}
      : { events: { source: owner, ids: mapped.events, ttlSeconds: EVENT_TTL_SECONDS } };
  return api.apply(mapped.changes, { owner, ...events });
}

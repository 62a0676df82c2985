import {
  platformExternalId,
  type DesiredGroup,
  type DesiredUser,
  type IdentityKind,
} from '../../domain/identity.js';
import type { KnownIdentity, MatchStep, Observed, ProvisionDeps } from './provision-types.js';

export interface Match {
  step: MatchStep;
  observed?: Observed;
}

/**
 * The identity's platform account, found as a reconcile run finds it (SPEC §6, Matching) but with
 * look-ups only: the account the bridge knows for it (GET by its id), else `externalId eq`, then
 * `userName eq` / `displayName eq`. Nothing is adopted: what a run would do is the action's to say.
 */
export async function matchOnPlatform(
  deps: ProvisionDeps,
  kind: IdentityKind,
  desired: DesiredUser | DesiredGroup,
  known: KnownIdentity,
): Promise<Match> {
  if (known.targetId) {
    const resource = await deps.platform.get(kind, known.targetId);
    if (resource) {
      const reason = `the platform ${kind} the bridge ${known.managed ? 'manages' : 'knows'} for it`;
      const step: MatchStep = {
        outcome: 'matched',
        by: 'targetId',
        targetId: resource.id,
        managed: known.managed,
        reason,
      };
      return { step, observed: resource };
    }
  }
  const name = kind === 'user' ? 'userName' : 'displayName';
  const lookups = [
    { attribute: 'externalId', value: platformExternalId(desired) },
    { attribute: name, value: 'userName' in desired ? desired.userName : desired.displayName },
  ] as const;
  const answers = await Promise.all(
    lookups.map(async ({ attribute, value }) =>
      (await deps.platform.findBy(kind, attribute, value)).find((r) => matches(r, attribute, value)),
    ),
  );
  const gone = known.targetId ? ` (the platform ${kind} ${known.targetId} the bridge knew is gone)` : '';
  const index = answers.findIndex((answer) => answer !== undefined);
  const resource = answers[index];
  const lookup = lookups[index];
  if (!resource || !lookup) {
    const looked = lookups.map((l) => `${l.attribute} ${JSON.stringify(l.value)}`).join(' or ');
    return { step: { outcome: 'none', managed: false, reason: `no platform ${kind} with ${looked}${gone}` } };
  }
  const holder = await deps.store.holderOf(kind, resource.id);
  const other = answers.find((answer) => answer !== undefined && answer.id !== resource.id);
  const step: MatchStep = {
    outcome: 'matched',
    by: lookup.attribute,
    targetId: resource.id,
    managed: holder === desired.id,
    ...(holder !== undefined && holder !== desired.id ? { heldBy: holder } : {}),
    ...(other ? { alsoMatches: other.id } : {}),
    reason: `found by ${lookup.attribute}${gone}`,
  };
  return { step, observed: resource };
}

/** What the bridge knows of an identity it does not look up (out of scope, unmappable). */
export function matchFromStore(kind: IdentityKind, known: KnownIdentity): MatchStep {
  const reason = 'the identity is not in scope or not mapped';
  if (!known.targetId) return { outcome: 'not-looked-up', managed: false, reason };
  const holds = `the bridge ${known.managed ? 'manages' : 'knows'} platform ${kind} ${known.targetId} for it`;
  return {
    outcome: 'not-looked-up',
    targetId: known.targetId,
    managed: known.managed,
    reason: `${reason}; ${holds}`,
  };
}

/** userName and displayName compare case-insensitively (RFC 7643 §4.1.1, §4.2); externalId exactly. */
function matches(resource: Observed, attribute: string, value: string): boolean {
  const actual = (resource as unknown as Record<string, unknown>)[attribute];
  if (typeof actual !== 'string') return false;
  return attribute === 'externalId' ? actual === value : actual.toLowerCase() === value.toLowerCase();
}

import type { ObservedGroup } from '../../domain/group-diff.js';
import { diffGroup, groupBody } from '../../domain/group-diff.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../../domain/identity.js';
import { diffUser, userBody, type ObservedUser } from '../../domain/user-diff.js';
import type { Match } from './provision-match.js';
import type { ActionStep, AttributeChange, KnownIdentity } from './provision-types.js';

/** What the action decision reads. */
export interface ActionFacts {
  kind: IdentityKind;
  owner: string;
  known: KnownIdentity;
  /** Why it is not provisioned (out of scope, unmappable), when it is not. */
  leftOut?: string;
  desired?: DesiredUser | DesiredGroup;
  match?: Match;
  /** Groups: platform ids of the members the bridge has provisioned, and how many it has not yet. */
  members?: { targetIds: string[]; provisionFirst: number };
}

/**
 * What applying would do (SPEC §6): create, update (the attributes before → after), nothing, or —
 * for an identity the input no longer brings — the removal the next full sync would make (provision
 * on demand never removes); `conflict` when ownership or matching would park it instead.
 */
export function decideAction(facts: ActionFacts): ActionStep {
  const { kind, desired, match } = facts;
  if (!desired || !match) return leftOutAction(facts);
  const conflict = conflictOf(facts, desired.id);
  if (conflict) return { action: 'conflict', reason: conflict };
  const { observed, step } = match;
  const adopt = step.managed ? '' : ' (the bridge adopts it first)';
  if (!observed) {
    const after = kind === 'user' ? userBody(desired as DesiredUser) : groupBody(desired as DesiredGroup, []);
    const changes = Object.entries(after)
      .filter(([attribute]) => attribute !== 'members')
      .map(([attribute, value]) => ({ attribute, before: null, after: value }));
    const members = facts.members && {
      add: facts.members.targetIds.length,
      remove: 0,
      provisionFirst: facts.members.provisionFirst,
    };
    return {
      action: 'create',
      reason: `no platform ${kind} matches: it is created`,
      changes,
      ...(members ? { members } : {}),
    };
  }
  const diff: Pick<ActionStep, 'members'> & { changes: AttributeChange[] } =
    kind === 'user'
      ? { changes: userChanges(desired as DesiredUser, observed as ObservedUser) }
      : groupChanges(desired as DesiredGroup, observed as ObservedGroup, facts.members);
  const pending = diff.members ? diff.members.add + diff.members.remove + diff.members.provisionFirst : 0;
  if (diff.changes.length === 0 && pending === 0) {
    return {
      action: 'none',
      reason: `the platform ${kind} ${observed.id} already matches${adopt}`,
      ...diff,
    };
  }
  const what = [...diff.changes.map((c) => c.attribute), ...(pending > 0 ? ['members'] : [])];
  return {
    action: 'update',
    reason: `the platform ${kind} ${observed.id} differs in ${what.join(', ')}${adopt}`,
    ...diff,
  };
}

function leftOutAction({ kind, owner, known, leftOut }: ActionFacts): ActionStep {
  const why = leftOut ?? 'not in scope';
  if (!known.desired || (known.owner !== undefined && known.owner !== owner))
    return {
      action: 'none',
      reason: `${why}: nothing to provision, and the bridge holds nothing of it for ${owner}`,
    };
  const platform =
    known.targetId && known.managed
      ? kind === 'user'
        ? `, and deprovisions platform user ${known.targetId} (as DEPROVISION says)`
        : `, and deletes platform group ${known.targetId}`
      : '';
  return {
    action: 'remove-would-happen',
    reason: `${why}: the next full sync of ${owner} removes it from the desired state${platform}; provisioning on demand removes nothing`,
  };
}

function conflictOf({ kind, owner, known, match }: ActionFacts, id: string): string | undefined {
  if (known.owner !== undefined && known.owner !== owner)
    return `the ${kind} ${id} belongs to the input ${known.owner}: applying changes nothing (owned-elsewhere; see GET /admin/conflicts)`;
  if (known.parked)
    return `parked by conflict ${known.parked}: not reconciled until an admin resolves it (GET /admin/conflicts)`;
  const step = match?.step;
  if (step?.heldBy)
    return `the matching platform ${kind} ${step.targetId} is managed for ${kind} ${JSON.stringify(step.heldBy)}: it would be parked with a conflict`;
  if (step?.alsoMatches && !step.managed)
    return `two platform ${kind}s fit (${step.targetId} by ${step.by}, ${step.alsoMatches} by name): it would be parked as ambiguous`;
  return undefined;
}

function userChanges(desired: DesiredUser, observed: ObservedUser): AttributeChange[] {
  const after = userBody(desired);
  const before = observed as unknown as Record<string, unknown>;
  return diffUser(desired, observed).attributes.map((attribute) => ({
    attribute,
    before: before[attribute] ?? null,
    after: after[attribute] ?? null,
  }));
}

function groupChanges(
  desired: DesiredGroup,
  observed: ObservedGroup,
  members: ActionFacts['members'] = { targetIds: [], provisionFirst: 0 },
): { changes: AttributeChange[]; members: NonNullable<ActionStep['members']> } {
  const diff = diffGroup(desired, members.targetIds, observed);
  const after = groupBody(desired, members.targetIds);
  const before = observed as unknown as Record<string, unknown>;
  const changes = diff.attributes
    .filter((attribute) => attribute !== 'members')
    .map((attribute) => ({ attribute, before: before[attribute] ?? null, after: after[attribute] ?? null }));
  return {
    changes,
    members: { add: diff.added.length, remove: diff.removed.length, provisionFirst: members.provisionFirst },
  };
}

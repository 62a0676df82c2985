import type { DesiredGroup, DesiredUser } from '../../domain/identity.js';
import { DEFAULT_POLICY, type CompiledPolicy } from '../../domain/identity-policy.js';
import { explainPolicy, type PolicyVerdict } from '../../domain/policy-explain.js';
import type { SourceIdentity } from '../../domain/source-identity.js';
import type { ProvisionInput } from './provision-input.js';
import {
  MEMBERS_SHOWN,
  type MembersStep,
  type ProvisionRequest,
  type ProvisionResult,
} from './provision-types.js';

type Steps = ProvisionResult['steps'];

/** The identity as read and put through its input's scope and mapping. */
export interface Explained {
  id: string;
  read: Steps['read'];
  scope: Steps['scope'];
  mapping: Steps['mapping'];
  /** Groups: the members as the user scope and mapping see them, and those it keeps, mapped. */
  members?: { step: MembersStep; users: DesiredUser[] };
  /** In scope and mapped: what the desired state would hold. */
  desired?: DesiredUser | DesiredGroup;
}

/** What the source said: the identity found, left out by the read itself (with why), or nothing. */
export type Reading = { outcome: 'absent'; reason: string } | { outcome: 'read'; explained: Explained };

/**
 * Reads the identity from its input's source and applies the input's scope and mapping in force,
 * as a full read would (sources/policy-sink.ts): a group keeps the members the user scope keeps.
 */
export async function readAndExplain(input: ProvisionInput, request: ProvisionRequest): Promise<Reading> {
  const read = await input.readOne(request.kind, request.key);
  const source = input.read.label;
  if (read.outcome === 'absent') return read;
  if (read.outcome === 'excluded') {
    return {
      outcome: 'read',
      explained: {
        id: request.key,
        read: { found: true, id: request.key, label: read.label, source },
        scope: { outcome: 'out-of-scope', reason: read.reason },
        mapping: { outcome: 'skipped', reason: 'not in scope', expressions: [] },
      },
    };
  }
  const { identity } = read;
  const policy = input.read.policy?.active ?? DEFAULT_POLICY;
  const prefix = input.read.policy?.setting ?? input.owner.split(':')[0] ?? input.owner;
  const members = identity.members && explainMembers(policy, prefix, identity.members);
  const base = members ? { ...identity.item, members: members.users.map((u) => u.id) } : identity.item;
  const verdict = explainPolicy(policy, prefix, request.kind, identity, base);
  return {
    outcome: 'read',
    explained: {
      id: identity.id,
      read: { found: true, id: identity.id, label: identity.label, source },
      scope: verdict.scope,
      mapping: { ...verdict.mapping, expressions: verdict.expressions },
      ...(members ? { members } : {}),
      ...(verdict.mapping.outcome === 'mapped' ? { desired: verdict.mapping.identity } : {}),
    },
  };
}

function explainMembers(
  policy: CompiledPolicy,
  prefix: string,
  members: readonly SourceIdentity[],
): { step: MembersStep; users: DesiredUser[] } {
  const step: MembersStep = { total: members.length, inScope: 0, outOfScope: 0, unmappable: 0, items: [] };
  const users: DesiredUser[] = [];
  for (const member of members) {
    const verdict = explainPolicy(policy, prefix, 'users', member);
    const view = memberView(member, verdict);
    if (view.outcome === 'in-scope') step.inScope++;
    else if (view.outcome === 'out-of-scope') step.outOfScope++;
    else step.unmappable++;
    if (verdict.mapping.outcome === 'mapped') users.push(verdict.mapping.identity as DesiredUser);
    if (step.items.length < MEMBERS_SHOWN) step.items.push(view);
  }
  return { step, users };
}

function memberView(member: SourceIdentity, verdict: PolicyVerdict): MembersStep['items'][number] {
  const { scope, mapping } = verdict;
  const base = { id: member.id, label: member.label };
  if (scope.outcome === 'out-of-scope') return { ...base, outcome: 'out-of-scope', reason: scope.reason };
  if (scope.outcome === 'failed') return { ...base, outcome: 'unmappable', reason: scope.reason };
  if (mapping.outcome !== 'mapped') return { ...base, outcome: 'unmappable', reason: mapping.reason };
  return { ...base, outcome: 'in-scope', userName: (mapping.identity as DesiredUser).userName };
}

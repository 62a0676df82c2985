import { BridgeError } from '../../domain/errors.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../../domain/identity.js';
import { decideAction } from './provision-action.js';
import { applyIdentity } from './provision-apply.js';
import { inputToProvision, type ProvisionInput } from './provision-input.js';
import { matchFromStore, matchOnPlatform } from './provision-match.js';
import { readAndExplain, type Explained } from './provision-read.js';
import type {
  AppliedStep,
  KnownIdentity,
  ProvisionDeps,
  ProvisionRequest,
  ProvisionResult,
} from './provision-types.js';

export type { ProvisionRequest, ProvisionResult } from './provision-types.js';

/**
 * Provision on demand (docs/scope-and-mapping.md): reads one user or group from its input's source
 * now, puts it through the input's scope and mapping, finds its platform account with look-ups
 * only, says what applying does — and, unless it is a dry run, applies it alone through the
 * desired state and the reconcile pipeline and waits for the platform to match. A dry run writes
 * nothing: no desired state, no platform request but look-ups. An identity the source does not
 * hold is a 404, and nothing changes.
 */
export class ProvisionService {
  constructor(private readonly deps: ProvisionDeps) {}

  async provision(request: ProvisionRequest): Promise<ProvisionResult> {
    const input = inputToProvision(this.deps.inputs, request.input);
    const kind: IdentityKind = request.kind === 'users' ? 'user' : 'group';
    const reading = await readAndExplain(input, request);
    if (reading.outcome === 'absent') throw await this.notFound(kind, request.key, reading.reason, input);
    const { explained } = reading;
    const known = await this.deps.store.known(kind, explained.id);
    const members = await this.memberTargets(explained);
    const match = explained.desired
      ? await matchOnPlatform(this.deps, kind, explained.desired, known)
      : undefined;
    const action = decideAction({
      kind,
      owner: input.owner,
      known,
      ...(explained.desired ? { desired: explained.desired } : { leftOut: leftOut(explained) }),
      ...(match ? { match } : {}),
      ...(members ? { members } : {}),
    });
    const applied = request.dryRun
      ? undefined
      : await this.apply(input, kind, explained, members?.provisioned ?? new Set(), request.waitMs);
    return {
      input: input.owner,
      kind,
      key: request.key,
      dryRun: request.dryRun,
      steps: {
        read: explained.read,
        scope: explained.scope,
        mapping: explained.mapping,
        ...(explained.members ? { members: explained.members.step } : {}),
        match: match?.step ?? matchFromStore(kind, known),
        action,
        ...(applied ? { applied } : {}),
      },
    };
  }

  private async apply(
    input: ProvisionInput,
    kind: IdentityKind,
    explained: Explained,
    provisioned: ReadonlySet<string>,
    waitMs: number,
  ): Promise<AppliedStep> {
    const { desired } = explained;
    if (!desired)
      return {
        state: 'not-applied',
        reason: `${leftOut(explained)}: nothing applied`,
        identities: [],
        total: 0,
      };
    if (kind === 'user') {
      return applyIdentity(this.deps, input.owner, { kind, desired: desired as DesiredUser }, waitMs);
    }
    const members = explained.members?.users ?? [];
    const group = { kind, desired: desired as DesiredGroup, members, provisioned };
    return applyIdentity(this.deps, input.owner, group, waitMs);
  }

  /** The platform ids of a group's kept members the bridge knows (shown beside them), and whose. */
  private async memberTargets(explained: Explained) {
    if (!explained.members) return undefined;
    const ids = explained.members.users.map((u) => u.id);
    const targets = await this.deps.store.userTargets(ids);
    for (const item of explained.members.step.items) {
      const targetId = targets.get(item.id)?.targetId;
      if (targetId) item.targetId = targetId;
    }
    const provisioned = new Set(ids.filter((id) => targets.get(id)?.targetId));
    const targetIds = ids.flatMap((id) => targets.get(id)?.targetId ?? []);
    return { targetIds, provisionFirst: ids.length - targetIds.length, provisioned };
  }

  private async notFound(kind: IdentityKind, key: string, reason: string, input: ProvisionInput) {
    const known: KnownIdentity = await this.deps.store.known(kind, key);
    const held =
      known.desired && known.owner === input.owner
        ? `; the bridge still holds it for ${input.owner}: the next full sync of the input removes it`
        : '';
    return new BridgeError('not_found', `No ${kind} ${JSON.stringify(key)} at the source: ${reason}${held}`);
  }
}

function leftOut(explained: Explained): string {
  if (explained.scope.outcome !== 'in-scope') return explained.scope.reason;
  return explained.mapping.outcome === 'mapped' ? '' : `cannot be mapped: ${explained.mapping.reason}`;
}

import { redact } from '../ops/redact.js';
import type { Conflict, ConflictParty } from '../store/conflicts.store.js';
import type { Conflict as ConflictView, ConflictParty as PartyView } from './schemas/conflicts.schema.js';

/**
 * What the admin API shows of a conflict between inputs (GET /admin/conflicts, an identity's trace):
 * both claimants by owner, id and name, the platform account, when it was seen, and how it was
 * resolved. Times as ISO strings, absent values as null.
 */
export function conflictView(conflict: Conflict): ConflictView {
  return {
    id: conflict.id,
    kind: conflict.kind,
    identityKind: conflict.identityKind,
    status: conflict.status,
    claimant: partyView(conflict.claimant),
    holder: conflict.holder ? partyView(conflict.holder) : null,
    account: {
      targetId: conflict.account.targetId ?? null,
      by: conflict.account.by,
      ...(conflict.account.candidates
        ? {
            candidates: conflict.account.candidates.map((c) => ({
              targetId: c.targetId,
              by: c.by,
              name: c.name ?? null,
            })),
          }
        : {}),
    },
    ...(conflict.desired ? { desired: redact(conflict.desired) as ConflictView['desired'] } : {}),
    firstSeenAt: time(conflict.firstSeenAt),
    lastSeenAt: time(conflict.lastSeenAt),
    resolvedAt: time(conflict.resolvedAt),
    resolution: conflict.resolution
      ? { action: conflict.resolution.action, targetId: conflict.resolution.targetId ?? null }
      : null,
  };
}

function partyView(party: ConflictParty): PartyView {
  return { owner: party.owner ?? null, id: party.id, name: party.name ?? null };
}

function time(ms: number | undefined): string | null {
  return ms === undefined || !Number.isFinite(ms) || ms <= 0 ? null : new Date(ms).toISOString();
}

import type { DeprovisionLimit } from '../config/schema.js';
import { BridgeError } from '../domain/errors.js';
import type { SyncRecordStore } from '../store/sync-record.store.js';

/**
 * The guards of a full reconciliation against removing accounts by accident (SPEC §6, Guards;
 * docs/operating.md, "What the bridge will never do on its own"): an empty source is refused, and a
 * run over DEPROVISION_LIMIT or from a source that shrank by more than SOURCE_SHRINK_LIMIT is held.
 */

export type HoldReason = 'deprovision-limit' | 'source-shrink' | 'configuration-changed';

/** Where a sync's users come from: what the shrink guard compares like with like. */
export interface SourceCount {
  /** `snapshot` (pushed with the request), the configured DIRECTORY_SOURCE, or `none`. */
  name: string;
  /** Users the source lists; absent when there is no source (the desired state is reconciled). */
  users?: number;
  /** The input whose identities it replaces (`directory:<name>`); absent without a source. */
  owner?: string;
}

/** The last completed sync of the same source, as the shrink guard compared it. */
export interface SourceBaseline {
  jobId: string;
  users: number;
}

export interface GuardSettings {
  deprovisionLimit: DeprovisionLimit;
  /** SOURCE_SHRINK_LIMIT, in percent. */
  sourceShrinkLimit: number;
}

export interface Verdict {
  held: boolean;
  reasons: HoldReason[];
  /** DEPROVISION_LIMIT as a count of users for this run. */
  limit: number;
  baseline?: SourceBaseline;
  /** How much the source shrank since the baseline, in percent (rounded down to a tenth). */
  shrunkBy?: number;
}

/**
 * Why a source's read left no users when it listed some: a scope and mapping (the candidate's of a
 * preview, or the input's own) kept none of them in.
 */
export interface ScopedOut {
  /** `candidate`: a preview's candidate; `configured`: the input's scope and mapping in force. */
  policy: 'candidate' | 'configured';
  /** Users the source listed before its scope, when known (a read that compares two counts each). */
  listed?: number;
  /** Users the scope and mapping could not map. */
  unmappable: number;
}

/**
 * Refuses a source that lists no users while the bridge manages some, unless the request said the
 * directory really is empty (`allowEmpty`): an export that came back empty, or a scope that keeps
 * nobody in, must not deprovision everyone. Thrown before anything is written.
 */
export function refuseEmptySource(
  source: SourceCount,
  managedUsers: number,
  allowEmpty: boolean,
  scopedOut?: ScopedOut,
): void {
  if (source.users !== 0 || managedUsers === 0 || allowEmpty) return;
  const origin = source.name === 'snapshot' ? 'The pushed snapshot' : `The directory source (${source.name})`;
  const retry = 'start the sync again with allowEmpty: true (scim-bridge sync --allow-empty)';
  if (scopedOut === undefined) {
    throw new BridgeError(
      'source_empty',
      `${origin} lists no users while the bridge manages ${managedUsers}; nothing was changed. If the ` +
        `directory really is empty, ${retry}`,
    );
  }
  throw new BridgeError(
    'source_empty',
    `${origin} ${scopedWording(scopedOut)} while the bridge manages ${managedUsers}: a sync that ` +
      `would deprovision them all is refused; nothing was changed. If no user should be in scope, ${retry}`,
  );
}

function scopedWording({ policy, listed, unmappable }: ScopedOut): string {
  const cannot = unmappable > 0 ? `${unmappable} cannot be mapped` : '';
  if (listed === undefined) return `lists no users in its scope and mapping${cannot ? ` (${cannot})` : ''}`;
  const whose =
    policy === 'candidate' ? "the candidate's scope and mapping leave" : 'its scope and mapping leave';
  const outside = `${listed - unmappable} out of scope${cannot ? `, ${cannot}` : ''}`;
  return `lists ${listed} ${listed === 1 ? 'user' : 'users'}, but ${whose} none of them in (${outside})`;
}

/** DEPROVISION_LIMIT as a count: the smaller of the count and the share of the managed users. */
export function resolveLimit(limit: DeprovisionLimit, managedUsers: number): number {
  const share = limit.share === undefined ? Infinity : Math.floor((limit.share / 100) * managedUsers);
  return Math.min(limit.count ?? Infinity, share);
}

/**
 * Whether the run waits for approval, and why: more users to deprovision than the limit (`managedUsers`:
 * the users of the run's own input the bridge manages), or a source listing more than
 * SOURCE_SHRINK_LIMIT fewer users than at the last completed (not dry-run) sync of the same source
 * for the same input. Only the source's own users are compared: other inputs' users count nowhere.
 */
export async function judge(
  records: SyncRecordStore,
  syncId: string,
  settings: GuardSettings,
  run: {
    source: SourceCount;
    deprovision: number;
    managedUsers: number;
    /** The input's scope or mapping changed since its last applied sync: what that removes or renames. */
    configChange?: { removals: number };
  },
): Promise<Verdict> {
  const limit = resolveLimit(settings.deprovisionLimit, run.managedUsers);
  const reasons: HoldReason[] = run.deprovision > limit ? ['deprovision-limit'] : [];
  if (run.configChange && run.configChange.removals > limit) reasons.push('configuration-changed');
  const now = run.source.users;
  const { name, owner } = run.source;
  const baseline = now === undefined ? undefined : await records.lastCompletedOf(name, owner, syncId);
  if (now === undefined || !baseline || baseline.users === 0) {
    return { held: reasons.length > 0, reasons, limit, ...(baseline ? { baseline } : {}) };
  }
  const shrunkBy = Math.max(0, Math.floor(((baseline.users - now) / baseline.users) * 1000) / 10);
  if ((baseline.users - now) / baseline.users > settings.sourceShrinkLimit / 100)
    reasons.push('source-shrink');
  return { held: reasons.length > 0, reasons, limit, baseline, shrunkBy };
}

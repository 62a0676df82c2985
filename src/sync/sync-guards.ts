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
 * Refuses a source that lists no users while the bridge manages some, unless the request said the
 * directory really is empty (`allowEmpty`): an export that came back empty must not deprovision
 * everyone. Thrown before anything is written.
 */
export function refuseEmptySource(source: SourceCount, managedUsers: number, allowEmpty: boolean): void {
  if (source.users !== 0 || managedUsers === 0 || allowEmpty) return;
  const origin = source.name === 'snapshot' ? 'The pushed snapshot' : `The directory source (${source.name})`;
  throw new BridgeError(
    'source_empty',
    `${origin} lists no users while the bridge manages ${managedUsers}; nothing was changed. If the ` +
      'directory really is empty, start the sync again with allowEmpty: true (scim-bridge sync --allow-empty)',
  );
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

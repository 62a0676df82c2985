import { BridgeError } from '../domain/errors.js';
import type { FullRead } from '../domain/input.js';
import type { FullSyncDeps, RunContext, SourceView } from './full-sync.context.js';

/**
 * Where a full sync's source comes from when it is not read now: a staging (a pushed snapshot,
 * what a held sync kept), the desired state itself (no source), or the input's desired identities
 * when its source is unchanged since its last applied read (the same digest:
 * store/source-digest.store.ts).
 */

/** Raised when the bridge reads the same source into other desired states (parsing, canonical form). */
const DIGEST_FORMAT = 'd1';

/**
 * The digest of the run's source now (store/source-digest.store.ts), and whether the input's last
 * applied read found the same. None for a source that cannot tell, or for a preview of a candidate
 * scope and mapping; a run under a changed configuration reads (it compares the two) but its
 * digest is kept like any other.
 */
export async function sourceDigest(
  deps: FullSyncDeps,
  run: RunContext,
  reader: FullRead,
): Promise<{ value: string; unchanged: boolean } | undefined> {
  if (run.scope === undefined || run.record.candidate !== undefined) return undefined;
  const value = await digestNow(run, reader);
  if (value === undefined) return undefined;
  const unchanged = !run.preview && (await deps.store.sourceDigests.get(run.scope)) === value;
  return { value, unchanged };
}

export async function digestNow(run: RunContext, reader: FullRead): Promise<string | undefined> {
  const digest = await reader.fingerprint?.({ signal: run.cancel.signal });
  return digest === undefined ? undefined : `${DIGEST_FORMAT}:${digest}`;
}

/**
 * A source unchanged since the input's last applied read: the run plans from the input's desired
 * identities, which that read wrote and nothing has written since (or its digest would be gone).
 */
export async function unchangedSource(
  deps: FullSyncDeps,
  run: RunContext,
  reader: FullRead,
): Promise<SourceView> {
  run.store.planFromStored();
  const users = await run.store.storedUsers();
  await deps.store.records.update(run.syncId, {
    source: reader.sourceName,
    sourceUsers: users,
    sourceUnchanged: '1',
  });
  return { count: { name: reader.sourceName, users, ...owned(run) } };
}

/** A pushed snapshot, or what a held sync kept of its source: planned from its staging. */
export function isStaged(run: Pick<RunContext, 'record' | 'mode'>): boolean {
  const name = run.record.source;
  // A held run that found its source unchanged kept nothing of it: approved, it looks again.
  const kept = run.mode.fromKeptSource && run.record.sourceUnchanged !== true;
  return name === 'snapshot' || (kept && name !== undefined && name !== 'none');
}

export async function stagedSource(run: RunContext): Promise<SourceView> {
  const users = await run.store.staging.userCount();
  const recorded = run.record.sourceUsers ?? 0;
  if (run.record.staged !== true || users < recorded) {
    // Never fall back to something other than what was shown: a staging lost (Redis restarted
    // without persistence, an expiry) would read as a source that lists nobody.
    throw new BridgeError(
      'interrupted',
      `What sync ${run.syncId} kept of its source is gone from Redis; start a new sync`,
    );
  }
  return { count: { name: run.record.source ?? 'snapshot', users, ...owned(run) } };
}

export function owned(run: Pick<RunContext, 'scope'>): { owner?: string } {
  return run.scope === undefined ? {} : { owner: run.scope };
}

/** No source: the desired state is reconciled as it is. An input that can no longer be read fails. */
export function storedSource(run: RunContext): SourceView {
  if (run.scope !== undefined) {
    throw new BridgeError(
      'source_unavailable',
      `The input ${run.scope} can no longer be read in full (its configuration changed); start a new sync`,
      { retryable: false },
    );
  }
  return { count: { name: 'none' } };
}

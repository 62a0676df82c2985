import type { Inputs } from '../domain/input.js';
import type { Freshness, InputFreshnessStore } from '../store/input-freshness.store.js';
import type { InputStatus } from './schemas/status.schema.js';
import { redact } from './views.js';

/** A pulled input's recurring read, as the configuration sets it. */
export interface PullView {
  owner: string;
  read: 'delta';
  everySeconds: number;
  watermarkKind: string;
}

const NO_READS = { reads: 0, changes: 0, entriesRead: 0, durationMs: 0 };

/** Reads of its source failed in a row after which an input reports itself failing. */
const FAILING_AFTER = 3;

/** Each input as GET /admin/status shows it: what it can do and how fresh it is (SPEC §4). */
export async function inputStatuses(
  inputs: Inputs,
  freshness: InputFreshnessStore,
  pulls: readonly PullView[],
  now: number,
): Promise<InputStatus[]> {
  const all = inputs.all();
  const fresh = await freshness.read(all.map((input) => input.owner));
  return all.map((input) => {
    const pull = pulls.find((p) => p.owner === input.owner);
    const seen = fresh.get(input.owner) ?? { failures: 0, missed: 0, totals: NO_READS };
    const health = input.health();
    const refused =
      health.state === 'ok' && seen.failures > 0 && seen.lastErrorCode === 'source_unauthorized';
    const failing = health.state === 'ok' && seen.failures >= FAILING_AFTER;
    return {
      input: input.owner,
      kind: input.kind,
      state: refused ? 'refused' : failing ? 'failing' : health.state,
      detail: refused
        ? 'its source refused its credential: see lastError'
        : failing
          ? 'its last reads of its source failed'
          : (health.detail ?? null),
      push: input.push ? { path: input.push.path, enabled: input.push.enabled() } : null,
      readByDefault: input === inputs.directory(),
      fullRead: input.full ? { source: input.full.sourceName } : null,
      pull: pull
        ? { read: pull.read, everySeconds: pull.everySeconds, watermarkKind: pull.watermarkKind }
        : null,
      ...times(seen, pull !== undefined, now),
      lastRead: seen.cost ?? null,
      reads: seen.totals,
      failures: seen.failures,
      lastError: seen.lastError ? (redact(seen.lastError) as string) : null,
      missedHooks: input.push && pull ? seen.missed : null,
    };
  });
}

function times(seen: Freshness, pulled: boolean, now: number) {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    lastReadAt: iso(seen.readAt),
    lastReadKind: seen.readKind ?? null,
    newestChangeAt: iso(seen.changeAt),
    lagSeconds: pulled && seen.readAt !== undefined ? Math.max(0, (now - seen.readAt) / 1000) : null,
  };
}

import type { Watermark } from '../domain/input.js';
import type { SyncError } from '../domain/sync-error.js';

export type SyncState = 'queued' | 'running' | 'awaiting-approval' | 'completed' | 'failed';
export type SyncPhase =
  'queued' | 'reading-source' | 'listing-target' | 'planning' | 'applying' | 'awaiting-approval' | 'done';

export interface SyncProgress {
  phase: SyncPhase;
  done: number;
  total: number;
}

/** A full reconciliation as GET /admin/sync/{jobId} shows it (SPEC §6). */
export interface SyncRecord {
  jobId: string;
  state: SyncState;
  dryRun: boolean;
  trigger: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  progress: SyncProgress;
  plan?: Record<string, unknown>;
  summary?: Record<string, unknown>;
  error?: SyncError;
  /** The request said the directory may really be empty (SPEC §6, Guards). */
  allowEmpty: boolean;
  /** Records the matches as managed and writes nothing to the platform (SPEC §6). */
  linkOnly: boolean;
  /** The input whose identities the sync replaces (`okta`, `directory:<name>`); absent: every input's. */
  owner?: string;
  /** Where its users came from (`snapshot`, the DIRECTORY_SOURCE, `none`), once read. */
  source?: string;
  /** How many users that source listed. */
  sourceUsers?: number;
  /** What the sync read of its source is staged in Redis (a pushed snapshot; a directory, once read). */
  staged?: boolean;
  /**
   * Its source was unchanged since the input's last applied read (the same digest: a file's bytes,
   * the same scope and mapping): planned from the input's desired state, not read again.
   */
  sourceUnchanged?: boolean;
  /** Where the source's delta reads continue once this sync is applied: its position as the read began. */
  deltaFrom?: Watermark;
  /** A preview's candidate scope and mapping (docs/scope-and-mapping.md), as the request gave it. */
  candidate?: unknown;
  /** The scope and mapping the sync read its input with: their fingerprint and settings. */
  policy?: { fingerprint: string; settings: unknown };
  /** How the sync's scope and mapping differ from the ones compared (a preview, a changed configuration). */
  preview?: Record<string, unknown>;
  /** Identities its input's scope and mapping could not map, left out of it: how many, the first few. */
  skipped?: { count: number; sample: { kind: string; label: string; reason: string }[] };
  /** Outcomes of the reconcile runs the sync waited on: "user:created" → n. */
  outcomes: Record<string, number>;
  /** Requests those runs sent, by method. */
  requests: Record<string, number>;
  cancelRequested: boolean;
}

/** A sync record as its hash stores it (keys.ts, P:sync:<id>): JSON fields parsed, counters gathered. */
export function toRecord(jobId: string, hash: Record<string, string>): SyncRecord {
  const json = <T>(field: string): T | undefined =>
    hash[field] ? (JSON.parse(hash[field]) as T) : undefined;
  const iso = (field: string) => (hash[field] ? new Date(Number(hash[field])).toISOString() : undefined);
  const counters = (prefix: string) =>
    Object.fromEntries(
      Object.entries(hash)
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, v]) => [
          k.slice(prefix.length).replace(/^u:/, 'user:').replace(/^g:/, 'group:'),
          Number(v),
        ]),
    );
  return {
    jobId,
    state: hash.state as SyncState,
    dryRun: hash.dryRun === '1',
    trigger: hash.trigger ?? 'admin',
    createdAt: iso('createdAt') ?? new Date(0).toISOString(),
    ...(iso('startedAt') ? { startedAt: iso('startedAt') } : {}),
    ...(iso('finishedAt') ? { finishedAt: iso('finishedAt') } : {}),
    progress: json<SyncProgress>('progress') ?? { phase: 'queued', done: 0, total: 0 },
    ...(hash.plan ? { plan: json('plan') } : {}),
    ...(hash.summary ? { summary: json('summary') } : {}),
    ...(hash.error ? { error: json('error') } : {}),
    allowEmpty: hash.allowEmpty === '1',
    linkOnly: hash.linkOnly === '1',
    ...(hash.owner ? { owner: hash.owner } : {}),
    ...(hash.source ? { source: hash.source } : {}),
    ...(hash.sourceUsers ? { sourceUsers: Number(hash.sourceUsers) } : {}),
    ...(hash.staged === '1' ? { staged: true } : {}),
    ...(hash.sourceUnchanged === '1' ? { sourceUnchanged: true } : {}),
    ...(hash.deltaFrom ? { deltaFrom: json<Watermark>('deltaFrom') } : {}),
    ...(hash.candidate ? { candidate: json('candidate') } : {}),
    ...(hash.policy ? { policy: json<SyncRecord['policy']>('policy') } : {}),
    ...(hash.preview ? { preview: json('preview') } : {}),
    ...(hash.skipped ? { skipped: json<SyncRecord['skipped']>('skipped') } : {}),
    outcomes: counters('c:'),
    requests: counters('r:'),
    cancelRequested: hash.cancel === '1',
  };
}

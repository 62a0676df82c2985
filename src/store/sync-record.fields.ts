import type { Watermark } from '../domain/input.js';
import type { SyncProgress, SyncRecord, SyncState } from './sync-record.store.js';

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

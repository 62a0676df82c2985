import type { AdminCommandContext } from './admin-command.js';
import { shortTime } from './admin-command.js';
import type { SyncView } from './sync-summary-lines.js';
import { formatTable } from './table.js';

/** The fields of GET /admin/status the CLI shows. */
export interface StatusView {
  status: 'ok' | 'degraded';
  target: { state: string; since: string | null; detail: string | null; pausedForMs: number };
  queues: Record<string, Record<string, number>>;
  identities: Record<'users' | 'groups', { desired: number; managed: number; deprovisioned: number }>;
  failures: number;
  pending: number;
  /** Open conflicts between inputs (absent from bridges older than owners). */
  conflicts?: number;
  /** Desired identities per owning input (absent from bridges older than owners). */
  owners?: Record<string, { users: number; groups: number }>;
  activeSync: (SyncView & { finishedAt?: string }) | null;
  lastSync: (SyncView & { finishedAt?: string }) | null;
  lastFullSync: (SyncView & { finishedAt?: string }) | null;
}

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'];

/** `scim-bridge status`: exit 0 when the target is reachable, 1 when it is not (or on error). */
export async function statusCommand({ client, write }: AdminCommandContext): Promise<number> {
  const { body } = await client.call<StatusView>('GET', '/admin/status');
  write(formatStatus(body));
  return body.status === 'ok' ? 0 : 1;
}

export function formatStatus(s: StatusView): string {
  const t = s.target;
  const target = [
    `Target: ${t.state}`,
    t.since ? ` since ${shortTime(t.since)}` : '',
    t.pausedForMs > 0 ? `, processing paused for ${Math.ceil(t.pausedForMs / 1000)} s` : '',
    t.detail && t.state !== 'reachable' ? ` (${t.detail})` : '',
  ].join('');
  const identities = formatTable(
    ['', 'desired', 'managed', 'deprovisioned'],
    (['users', 'groups'] as const).map((k) => [
      k,
      s.identities[k].desired,
      s.identities[k].managed,
      s.identities[k].deprovisioned,
    ]),
  );
  const owners = Object.entries(s.owners ?? {});
  const perInput =
    owners.length === 0
      ? []
      : [
          '',
          formatTable(
            ['input', 'users', 'groups'],
            owners.map(([o, c]) => [o, c.users, c.groups]),
          ),
        ];
  const queues = formatTable(
    ['queue', ...STATES],
    Object.entries(s.queues).map(([name, counts]) => [name, ...STATES.map((state) => counts[state] ?? 0)]),
  );
  return [
    target,
    `Failures: ${s.failures}    Changes pending: ${s.pending}` +
      (s.conflicts ? `    Conflicts: ${s.conflicts} (scim-bridge conflicts)` : ''),
    '',
    identities,
    ...perInput,
    '',
    queues,
    '',
    `Running sync:   ${s.activeSync ? syncLine(s.activeSync) : 'none'}`,
    `Last full sync: ${s.lastFullSync ? syncLine(s.lastFullSync) : 'none yet'}`,
    ...(s.lastSync && s.lastSync.jobId !== s.lastFullSync?.jobId
      ? [`Last sync:      ${syncLine(s.lastSync)}`]
      : []),
  ].join('\n');
}

function syncLine(sync: SyncView & { finishedAt?: string }): string {
  const head = `${sync.jobId} ${sync.state}${sync.dryRun ? ' (dry run)' : ''}`;
  if (sync.state === 'queued' || sync.state === 'running') {
    return `${head}: ${sync.progress.phase} ${sync.progress.done}/${sync.progress.total}`;
  }
  if (sync.state === 'awaiting-approval') {
    return `${head}: held, nothing applied; approve or cancel it (POST /admin/sync/${sync.jobId}/approve or /cancel)`;
  }
  const when = sync.finishedAt ? ` at ${shortTime(sync.finishedAt)}` : '';
  const sum = sync.summary;
  if (!sum || sync.dryRun) return `${head}${when}`;
  return (
    `${head}${when}: ${sum.created} created, ${sum.updated} updated, ${sum.deprovisioned} deprovisioned, ` +
    `${sum.unchanged} unchanged, ${sum.failed} failed; ${sum.requests.total ?? 0} requests in ${(sum.durationMs / 1000).toFixed(1)} s`
  );
}

import { ProgressBar } from './progress-bar.js';
import { heldLines, linkLines, ownedLines, removalLines, type PlanView } from './sync-plan-lines.js';
import { formatTable } from './table.js';

/** The fields of GET /admin/sync/{jobId} the CLI shows. */
export interface SyncView {
  jobId: string;
  state: string;
  dryRun: boolean;
  linkOnly?: boolean;
  progress: { phase: string; done: number; total: number };
  plan?: Record<string, unknown>;
  summary?: {
    created: number;
    updated: number;
    deprovisioned: number;
    unchanged: number;
    failed: number;
    requests: Record<string, number>;
    durationMs: number;
  };
  error?: { code: string; message: string };
}

const ENDED = new Set(['completed', 'failed', 'awaiting-approval']);

/**
 * Polls a sync until it ends (or waits for approval), drawing the progress bar. The bar's line is
 * ended either way, so that an error line does not start in the middle of it.
 */
export async function watchSync(read: () => Promise<SyncView>, bar = new ProgressBar()): Promise<SyncView> {
  try {
    for (;;) {
      const view = await read();
      bar.update(view.progress.phase, view.progress.done, view.progress.total);
      if (ENDED.has(view.state)) return view;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    bar.done();
  }
}

/** The summary table (or the plan of a dry run or a held sync). */
export function formatSyncResult(view: SyncView): string {
  const mode = [view.linkOnly ? 'link-only' : '', view.dryRun ? 'dry run' : ''].filter(Boolean).join(', ');
  const lines = [`Sync ${view.jobId}: ${view.state}${mode ? ` (${mode})` : ''}`];
  if (view.error) lines.push(`Error: ${view.error.code}: ${view.error.message}`);
  const plan = view.plan as PlanView | undefined;
  if (plan && view.linkOnly) {
    lines.push(...linkLines(plan, view.dryRun), ...ownedLines(plan));
    if (view.summary) lines.push('', `requests by method: ${byMethod(view.summary.requests) || 'none'}`);
    return lines.join('\n');
  }
  if (plan?.users && plan.groups && (view.dryRun || view.state === 'awaiting-approval')) {
    const row = (kind: string, c: Record<string, number>) => [
      kind,
      c.create ?? 0,
      c.update ?? 0,
      c.deprovision ?? 0,
      c.unchanged ?? 0,
    ];
    lines.push(
      '',
      'Plan',
      formatTable(
        ['', 'create', 'update', 'deprovision', 'unchanged'],
        [row('users', plan.users), row('groups', plan.groups)],
      ),
    );
    const held = view.state === 'awaiting-approval';
    if (held) lines.push(...heldLines(view.jobId, plan));
    lines.push(...removalLines(plan, held ? 'Removals held' : 'Removals planned'));
  }
  if (plan) lines.push(...ownedLines(plan));
  const s = view.summary;
  if (s && !view.dryRun) {
    const requests = byMethod(s.requests);
    lines.push(
      '',
      formatTable(
        ['created', 'updated', 'deprovisioned', 'unchanged', 'failed', 'requests', 'seconds'],
        [
          [
            s.created,
            s.updated,
            s.deprovisioned,
            s.unchanged,
            s.failed,
            s.requests.total ?? 0,
            Number((s.durationMs / 1000).toFixed(1)),
          ],
        ],
      ),
      `requests by method: ${requests || 'none'}`,
    );
  }
  return lines.join('\n');
}

/** Exit codes of `scim-bridge sync` (SPEC §2): 0 success, 1 failure, 3 held for approval. */
export function exitCodeFor(view: SyncView): number {
  if (view.state === 'awaiting-approval') return 3;
  return view.state === 'completed' && (view.summary?.failed ?? 0) === 0 ? 0 : 1;
}

function byMethod(requests: Record<string, number>): string {
  return Object.entries(requests)
    .filter(([method]) => method !== 'total')
    .map(([method, n]) => `${method} ${n}`)
    .join(', ');
}

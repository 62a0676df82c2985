import type { SyncPlan } from '../domain/sync-plan.js';
import type { SyncRecord } from './sync-record.store.js';

/** What a sync did itself, before the runs it waited on: identities unchanged, listing requests. */
export interface SummaryBase {
  unchanged: number;
  requests: Record<string, number>;
}

export function summaryBase(plan: SyncPlan, requests: Record<string, number>): SummaryBase {
  return { unchanged: plan.counts.users.unchanged + plan.counts.groups.unchanged, requests: { ...requests } };
}

const SAMPLE = 100;

/** The plan as GET /admin/sync/{jobId} shows it: counts per kind, the hold, and a sample of changes. */
export function planReport(plan: SyncPlan, options: { held: boolean; limit: number; dryRun: boolean }) {
  const total = (k: 'create' | 'update' | 'deprovision' | 'unchanged') =>
    plan.counts.users[k] + plan.counts.groups[k];
  return {
    create: total('create'),
    update: total('update'),
    deprovision: total('deprovision'),
    unchanged: total('unchanged'),
    users: plan.counts.users,
    groups: plan.counts.groups,
    unmanagedUsers: plan.unmanagedUsers,
    deprovisionLimit: options.limit,
    held: options.held,
    changes: plan.changes.slice(0, SAMPLE).map((c) => ({
      kind: c.kind,
      id: c.id,
      action: c.action,
      ...(c.targetId ? { targetId: c.targetId } : {}),
      ...(c.attributes ? { attributes: c.attributes } : {}),
    })),
    changesOmitted: Math.max(0, plan.changes.length - SAMPLE),
  };
}

/**
 * The summary of a finished sync (SPEC §6): what the runs it waited on did (created, updated,
 * deprovisioned, failed), what needed nothing (unchanged), requests sent by method, duration.
 */
export function summarise(record: SyncRecord | undefined, base: SummaryBase, durationMs: number) {
  const outcomes = record?.outcomes ?? {};
  const count = (...actions: string[]) =>
    Object.entries(outcomes)
      .filter(([key]) => actions.includes(key.slice(key.indexOf(':') + 1)))
      .reduce((sum, [, n]) => sum + n, 0);
  const requests: Record<string, number> = { ...base.requests };
  for (const [method, n] of Object.entries(record?.requests ?? {}))
    requests[method] = (requests[method] ?? 0) + n;
  return {
    created: count('created'),
    updated: count('updated'),
    deprovisioned: count('deprovisioned', 'deleted'),
    unchanged: base.unchanged + count('unchanged', 'adopted'),
    failed: count('failed'),
    requests: { ...requests, total: Object.values(requests).reduce((a, b) => a + b, 0) },
    durationMs,
    outcomes,
  };
}

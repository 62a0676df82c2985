import { formatDeprovisionLimit } from '../config/schema.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { SyncPlan } from '../domain/sync-plan.js';
import type { ObservedUser } from '../domain/user-diff.js';
import type { GuardSettings, SourceCount, Verdict } from './sync-guards.js';
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
/** Groups, and members per group, shown of the membership removals. */
const MEMBERSHIP_SAMPLE = 25;

export interface ReportOptions {
  verdict: Verdict;
  source: SourceCount;
  /** The run continues a held sync an operator approved. */
  approved: boolean;
  settings: GuardSettings;
}

/**
 * The plan as GET /admin/sync/{jobId} shows it: counts per kind, the removals by kind with names,
 * the guards' verdict (held, why, with the counts compared), and a sample of changes.
 */
export function planReport(plan: SyncPlan, options: ReportOptions) {
  const { verdict, source, settings } = options;
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
    deprovisionLimit: verdict.limit,
    deprovisionLimitSetting: formatDeprovisionLimit(settings.deprovisionLimit),
    held: verdict.held,
    holdReasons: verdict.reasons,
    ...(options.approved ? { approved: true } : {}),
    source: {
      name: source.name,
      ...(source.users === undefined ? {} : { users: source.users }),
      ...(verdict.baseline ? { last: verdict.baseline } : {}),
      ...(verdict.shrunkBy === undefined ? {} : { shrunkByPercent: verdict.shrunkBy }),
      shrinkLimitPercent: settings.sourceShrinkLimit,
    },
    removals: removalsReport(plan),
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
 * What the run removes on the platform, by kind, named as the platform shows them: users it
 * deprovisions, groups it deletes, and members it takes out of groups (bounded samples, full counts).
 */
export function removalsReport(plan: SyncPlan) {
  const gone = (kind: 'user' | 'group') =>
    plan.changes.filter((c) => c.kind === kind && c.action === 'deprovision');
  const users = gone('user');
  const groups = gone('group');
  const memberships = plan.changes.filter((c) => c.removedMembers && c.removedMembers.length > 0);
  return {
    users: {
      total: users.length,
      sample: users.slice(0, SAMPLE).map((c) => ({
        id: c.id,
        userName: (c.observed as ObservedUser | null)?.userName ?? null,
      })),
    },
    groups: {
      total: groups.length,
      sample: groups.slice(0, SAMPLE).map((c) => ({
        id: c.id,
        displayName: (c.observed as ObservedGroup | null)?.displayName ?? null,
      })),
    },
    memberships: {
      total: memberships.reduce((sum, c) => sum + (c.removedMembers?.length ?? 0), 0),
      groups: memberships.length,
      sample: memberships.slice(0, MEMBERSHIP_SAMPLE).map((c) => ({
        group: c.id,
        displayName: (c.observed as ObservedGroup | null)?.displayName ?? null,
        total: c.removedMembers?.length ?? 0,
        removed: (c.removedMembers ?? []).slice(0, MEMBERSHIP_SAMPLE).map((m) => ({
          id: m.id ?? null,
          userName: m.userName ?? null,
        })),
      })),
    },
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

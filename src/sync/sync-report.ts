import { formatDeprovisionLimit } from '../config/schema.js';
import type { GuardSettings, SourceCount, Verdict } from './sync-guards.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import type { LinkList, LinkTally } from './link-tally.js';
import type { OwnedElsewhere } from './owned-elsewhere.js';
import { MEMBERSHIP_SAMPLE, type PlanTally } from './plan-tally.js';

/** What a sync did itself, before the runs it waited on: identities unchanged, listing requests. */
export interface SummaryBase {
  unchanged: number;
  /** Of them, those the listing found clean: counted without being planned. */
  unchangedClean: number;
  requests: Record<string, number>;
  /** A link-only run's counts. */
  linked?: { linked: number; unmatchedInSource: number; unmatchedOnPlatform: number; ambiguous: number };
  /** And the same per kind, as its plan counts them (plan.linkOnly). */
  linkOnly?: { users: Record<LinkList, number>; groups: Record<LinkList, number> };
}

export function summaryBase(
  tally: PlanTally,
  requests: Record<string, number>,
  link?: LinkTally,
): SummaryBase {
  return {
    unchanged: tally.counts.users.unchanged + tally.counts.groups.unchanged,
    unchangedClean: tally.unchangedClean,
    requests: { ...requests },
    ...(link
      ? {
          linked: {
            linked: link.total('linked'),
            unmatchedInSource: link.total('unmatchedInSource'),
            unmatchedOnPlatform: link.total('unmatchedOnPlatform'),
            ambiguous: link.total('ambiguous'),
          },
          linkOnly: link.perKind(),
        }
      : {}),
  };
}

export interface ReportOptions {
  verdict: Verdict;
  source: SourceCount;
  /** The run continues a held sync an operator approved. */
  approved: boolean;
  settings: GuardSettings;
  /** What the run leaves to other inputs (a run that replaces one input's identities). */
  ownedElsewhere?: OwnedElsewhere | undefined;
  /** A link-only run's lists. */
  link?: LinkTally | undefined;
}

/** Names of the target users a membership sample takes out of groups: source id and userName. */
export type MemberNames = Map<string, { id?: string; userName?: string }>;

/**
 * The plan as GET /admin/sync/{jobId} shows it: counts per kind, the removals by kind with names,
 * the guards' verdict (held, why, with the counts compared), what it leaves to other inputs, a
 * link-only run's lists, and a sample of changes (for a link-only run: what the next normal sync
 * would change).
 */
export function planReport(tally: PlanTally, options: ReportOptions, names: MemberNames = new Map()) {
  const { verdict, source, settings } = options;
  const total = (k: 'create' | 'update' | 'deprovision' | 'unchanged') =>
    tally.counts.users[k] + tally.counts.groups[k];
  return {
    create: total('create'),
    update: total('update'),
    deprovision: total('deprovision'),
    unchanged: total('unchanged'),
    users: tally.counts.users,
    groups: tally.counts.groups,
    unmanagedUsers: tally.unmanagedUsers,
    ...(options.ownedElsewhere ? { ownedElsewhere: options.ownedElsewhere } : {}),
    ...(options.link ? { linkOnly: options.link.report() } : {}),
    deprovisionLimit: verdict.limit,
    deprovisionLimitSetting: formatDeprovisionLimit(settings.deprovisionLimit),
    held: verdict.held,
    holdReasons: verdict.reasons,
    ...(options.approved ? { approved: true } : {}),
    source: {
      name: source.name,
      ...(source.owner === undefined ? {} : { owner: source.owner }),
      ...(source.users === undefined ? {} : { users: source.users }),
      ...(verdict.baseline ? { last: verdict.baseline } : {}),
      ...(verdict.shrunkBy === undefined ? {} : { shrunkByPercent: verdict.shrunkBy }),
      shrinkLimitPercent: settings.sourceShrinkLimit,
    },
    removals: removalsReport(tally, names),
    changes: tally.sample,
    changesOmitted: Math.max(0, tally.totalChanges - tally.sample.length),
  };
}

/**
 * What the run removes on the platform, by kind, named as the platform shows them: users it
 * deprovisions, groups it deletes, and members it takes out of groups (bounded samples, full counts).
 */
export function removalsReport(tally: PlanTally, names: MemberNames) {
  return {
    users: tally.removedUsers,
    groups: tally.removedGroups,
    memberships: {
      total: tally.memberships.total,
      groups: tally.memberships.groups,
      sample: tally.memberships.sample.map((group) => ({
        group: group.group,
        displayName: group.displayName,
        total: group.total,
        removed: group.removed.slice(0, MEMBERSHIP_SAMPLE).map((targetId) => {
          const name = names.get(targetId);
          return { id: name?.id ?? null, userName: name?.userName ?? null };
        }),
      })),
    },
  };
}

/**
 * The summary of a finished sync (SPEC §6): what the runs it waited on did (created, updated,
 * deprovisioned, failed), what needed nothing (unchanged), requests sent by method, duration; for
 * a link-only run its counts, in total and per kind (`linkOnly`).
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
    ...(base.linked ?? {}),
    ...(base.linkOnly ? { linkOnly: base.linkOnly } : {}),
    created: count('created'),
    updated: count('updated'),
    deprovisioned: count('deprovisioned', 'deleted'),
    unchanged: base.unchanged + count('unchanged', 'adopted'),
    unchangedClean: base.unchangedClean,
    failed: count('failed'),
    requests: { ...requests, total: Object.values(requests).reduce((a, b) => a + b, 0) },
    durationMs,
    outcomes,
  };
}

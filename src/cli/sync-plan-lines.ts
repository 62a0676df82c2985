import { formatTable } from './table.js';

/** The parts of a sync's plan (GET /admin/sync/{jobId}) that say what it removes and why it is held. */
export interface PlanView {
  users?: Record<string, number>;
  groups?: Record<string, number>;
  held?: boolean;
  holdReasons?: string[];
  deprovisionLimit?: number;
  deprovisionLimitSetting?: string;
  source?: {
    name: string;
    users?: number;
    last?: { jobId: string; users: number };
    shrunkByPercent?: number;
    shrinkLimitPercent: number;
  };
  removals?: {
    users: Sampled<{ id: string | null; userName: string | null }>;
    groups: Sampled<{ id: string | null; displayName: string | null }>;
    memberships: Sampled<MembershipRemoval> & { groups: number };
  };
  ownedElsewhere?: {
    users: number;
    groups: number;
    owners: Record<string, { users: number; groups: number }>;
    refused: { users: number; groups: number };
    ambiguous?: { users: number; groups: number };
  };
  linkOnly?: Record<LinkCount, number> & {
    users?: Record<LinkCount, number>;
    groups?: Record<LinkCount, number>;
  };
}

type LinkCount = 'linked' | 'unmatchedInSource' | 'unmatchedOnPlatform' | 'ambiguous';
const LINK_COUNTS: LinkCount[] = ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous'];

interface Sampled<T> {
  total: number;
  sample: T[];
}

interface MembershipRemoval {
  group: string;
  displayName: string | null;
  total: number;
  removed: { id: string | null; userName: string | null }[];
}

/** Lines shown per kind of removal; the API's sample may hold more. */
const SHOWN = 10;

/** Why a held sync waits, with the counts the guards compared, and how to release or drop it. */
export function heldLines(jobId: string, plan: PlanView): string[] {
  const lines = [
    '',
    'Held for approval: nothing of this sync has been applied (desired state and platform).',
  ];
  const reasons = plan.holdReasons ?? [];
  if (reasons.includes('deprovision-limit')) {
    lines.push(
      `  - it would deprovision ${plan.users?.deprovision ?? 0} users, over DEPROVISION_LIMIT ` +
        `${plan.deprovisionLimitSetting ?? ''} (${plan.deprovisionLimit ?? 0} users for this bridge)`,
    );
  }
  const source = plan.source;
  if (reasons.includes('source-shrink') && source?.last) {
    lines.push(
      `  - the source (${source.name}) lists ${source.users ?? 0} users, ${source.shrunkByPercent ?? 0}% fewer ` +
        `than the ${source.last.users} of its last completed sync ${source.last.jobId} ` +
        `(SOURCE_SHRINK_LIMIT ${source.shrinkLimitPercent}%)`,
    );
  }
  if (reasons.includes('configuration-changed')) {
    lines.push(
      `  - configuration changed: the input's scope or mapping differs from its last applied sync, and it would remove or rename more users than DEPROVISION_LIMIT (GET /admin/sync/${jobId}/preview shows the difference)`,
    );
  }
  lines.push(
    `Approve: POST /admin/sync/${jobId}/approve (plans again against the platform and applies the whole sync).`,
    `Cancel:  POST /admin/sync/${jobId}/cancel (applies none of it).`,
  );
  return lines;
}

/** The removals of a plan by kind, with names: held ones, or those a dry run would make. */
export function removalLines(plan: PlanView, heading: string): string[] {
  const r = plan.removals;
  if (!r || r.users.total + r.groups.total + r.memberships.total === 0) return [];
  const name = (id: string | null, label: string | null) =>
    [id, label].filter((part) => part !== null).join(' ');
  const more = (shown: number, total: number) => (total > shown ? [`    … and ${total - shown} more`] : []);
  const lines = ['', heading];
  const users = r.users.sample.slice(0, SHOWN);
  lines.push(
    `  users to deprovision: ${r.users.total}`,
    ...users.map((u) => `    ${name(u.id, u.userName)}`),
  );
  lines.push(...more(users.length, r.users.total));
  const groups = r.groups.sample.slice(0, SHOWN);
  lines.push(
    `  groups to delete: ${r.groups.total}`,
    ...groups.map((g) => `    ${name(g.id, g.displayName)}`),
  );
  lines.push(...more(groups.length, r.groups.total));
  const memberships = r.memberships.sample.slice(0, SHOWN);
  lines.push(`  members to remove: ${r.memberships.total} from ${r.memberships.groups} groups`);
  for (const m of memberships) {
    const members = m.removed.slice(0, SHOWN).map((u) => u.userName ?? u.id ?? '?');
    const rest = m.total > members.length ? `, … ${m.total - members.length} more` : '';
    lines.push(`    ${m.displayName ?? m.group} (${m.total}): ${members.join(', ')}${rest}`);
  }
  lines.push(...more(memberships.length, r.memberships.groups));
  return lines;
}

const plural = (n: number, word: string) =>
  n === 1 ? `${n} ${word}` : `${n} ${word.endsWith('y') ? `${word.slice(0, -1)}ies` : `${word}s`}`;

/**
 * What the run leaves to other inputs (SPEC §6, Ownership): their identities, by owner, and the
 * source's identities another input holds, and those parked as ambiguous (both in the conflict
 * inbox).
 */
export function ownedLines(plan: PlanView): string[] {
  const owned = plan.ownedElsewhere;
  if (!owned) return [];
  const lines: string[] = [];
  if (owned.users + owned.groups > 0) {
    const owners = Object.entries(owned.owners)
      .map(([owner, c]) => `${owner} ${plural(c.users, 'user')}, ${plural(c.groups, 'group')}`)
      .join('; ');
    lines.push(
      `Left to other inputs (never removed by this sync): ${plural(owned.users, 'user')}, ` +
        `${plural(owned.groups, 'group')} (${owners})`,
    );
  }
  const refused = owned.refused.users + owned.refused.groups;
  if (refused > 0)
    lines.push(
      `Held by another input: ${plural(refused, 'identity')} of the source (see scim-bridge conflicts)`,
    );
  const ambiguous = (owned.ambiguous?.users ?? 0) + (owned.ambiguous?.groups ?? 0);
  if (ambiguous > 0)
    lines.push(
      `Waiting for an admin: ${plural(ambiguous, 'identity')} of the source two platform accounts fit ` +
        '(see scim-bridge conflicts)',
    );
  return lines.length > 0 ? ['', ...lines] : [];
}

/** A link-only run's counts per kind and in total, and what a normal sync would do next. */
export function linkLines(plan: PlanView, dryRun: boolean): string[] {
  const link = plan.linkOnly;
  if (!link) return [];
  const row = (label: string, counts: Record<LinkCount, number>) => [
    label,
    ...LINK_COUNTS.map((name) => counts[name]),
  ];
  const rows = [
    ...(link.users ? [row('users', link.users)] : []),
    ...(link.groups ? [row('groups', link.groups)] : []),
    row('total', link),
  ];
  const lines = [
    '',
    dryRun ? 'Link-only (dry run: nothing recorded)' : 'Link-only: nothing was written to the platform',
    formatTable(['', ...LINK_COUNTS], rows),
  ];
  if (link.ambiguous > 0) lines.push('Ambiguous ones wait in the conflict inbox: scim-bridge conflicts');
  if (!dryRun && link.unmatchedInSource > 0)
    lines.push(`Next: scim-bridge sync --wait creates the ${unmatched(link)} unmatched in the source.`);
  return lines;
}

/** The identities unmatched in the source, by kind: `20 users and 4 groups`. */
function unmatched(link: NonNullable<PlanView['linkOnly']>): string {
  if (!link.users || !link.groups) return String(link.unmatchedInSource);
  const kinds = [
    ...(link.users.unmatchedInSource > 0 ? [plural(link.users.unmatchedInSource, 'user')] : []),
    ...(link.groups.unmatchedInSource > 0 ? [plural(link.groups.unmatchedInSource, 'group')] : []),
  ];
  return kinds.join(' and ');
}

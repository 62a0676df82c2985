import type { AdminCommandContext } from './admin-command.js';
import { shortTime } from './admin-command.js';
import type { ConflictView } from './conflicts.command.js';

/** The fields of GET /admin/identities/{kind}/{key} the CLI prints. */
export interface IdentityTraceView {
  key: string;
  matchedBy: string;
  status: string;
  desired: Record<string, unknown> | null;
  targetId: string | null;
  managed: boolean;
  /** The input that owns it: scim, events, okta or directory:<name>. */
  owner?: string | null;
  /** The conflict that parks it, if any. */
  parked?: ConflictView | null;
  lastAppliedAt: string | null;
  lastAttemptAt: string | null;
  lastResult: string | null;
  lastError: { code: string; status?: number; message: string; detail?: string; at: string | null } | null;
  failedAt: string | null;
  pendingSince: string | null;
  heldBy: string | null;
  groups?: string[];
  history: ({ at: string | null; type: string } & Record<string, unknown>)[];
}

/** `scim-bridge explain <user|group> <key>`: why an identity is in the state it is in. */
export async function explainCommand(
  { client, write }: AdminCommandContext,
  kind: 'user' | 'group',
  key: string,
): Promise<number> {
  const path = `/admin/identities/${kind === 'user' ? 'users' : 'groups'}/${encodeURIComponent(key)}`;
  const { body } = await client.call<IdentityTraceView>('GET', path);
  write(formatTrace(body));
  return 0;
}

export function formatTrace(t: IdentityTraceView): string {
  const field = (label: string, value: string) => `  ${`${label}:`.padEnd(16)} ${value}`;
  const lines = [
    `${t.key}: ${t.status} (found by ${t.matchedBy})`,
    field('target id', t.targetId ?? '—'),
    field('managed', t.managed ? 'yes (created or adopted by the bridge)' : 'no'),
    field('owner', t.owner ?? '—'),
    ...(t.parked ? parkedLines(t.parked, field) : []),
    field('last applied', shortTime(t.lastAppliedAt)),
    field('last attempt', shortTime(t.lastAttemptAt)),
    field('last result', t.lastResult ?? '—'),
    field('pending since', shortTime(t.pendingSince)),
    field('failed since', shortTime(t.failedAt)),
    ...(t.heldBy ? [field('held by sync', t.heldBy)] : []),
    ...(t.groups ? [field('groups', t.groups.length > 0 ? t.groups.join(', ') : 'none')] : []),
  ];
  if (t.lastError) {
    const e = t.lastError;
    lines.push(
      '',
      `Last error: ${e.code}${e.status ? ` (HTTP ${e.status})` : ''} at ${shortTime(e.at)}`,
      `  ${e.message}`,
    );
    if (e.detail) lines.push(`  target detail: ${e.detail}`);
  }
  lines.push(
    '',
    'Desired state:',
    t.desired ? indent(JSON.stringify(t.desired, null, 2)) : '  none (should not exist)',
  );
  lines.push(
    '',
    'History, newest first:',
    ...(t.history.length ? t.history.map(historyLine) : ['  none recorded']),
  );
  return lines.join('\n');
}

/** Why it is parked, and how to resolve it. */
function parkedLines(c: ConflictView, field: (label: string, value: string) => string): string[] {
  const holder = c.holder ? ` held by ${c.holder.owner ?? '?'}:${c.holder.id}` : '';
  return [
    field('parked by', `conflict ${c.id} (${c.kind}, ${c.status})${holder}`),
    field('resolve', `scim-bridge conflicts --resolve ${c.id} --link (or --ignore)`),
  ];
}

function historyLine(entry: IdentityTraceView['history'][number]): string {
  const { at, type, ...rest } = entry;
  return `  ${shortTime(at)}  ${type.padEnd(8)}  ${describe(type, rest)}`;
}

function describe(type: string, e: Record<string, unknown>): string {
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  switch (type) {
    case 'request':
      return `${text(e.method)} ${text(e.path)} → ${text(e.status)}${typeof e.durationMs === 'number' ? ` (${Math.round(e.durationMs)} ms)` : ''}`;
    case 'signal':
      return `from ${text(e.source)}${e.detail === undefined ? '' : `: ${text(e.detail)}`}`;
    case 'decision': {
      const { decision, ...fields } = e;
      return `${text(decision)}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}`;
    }
    case 'error':
      return `${text(e.code)}: ${text(e.message)}`;
    default:
      return JSON.stringify(e);
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

import { InvalidArgumentError } from 'commander';
import type { AdminCommandContext } from './admin-command.js';
import { shortTime } from './admin-command.js';
import { CliError } from './cli-error.js';
import { formatTable } from './table.js';

export interface ConflictsOptions {
  status?: 'open' | 'ignored' | 'all';
  /** Most conflicts listed. */
  limit: number;
  resolve?: string;
  link?: boolean;
  ignore?: boolean;
  /** The candidate platform account of an ambiguous conflict. */
  target?: string;
}

interface Party {
  owner: string | null;
  id: string;
  name: string | null;
}

export interface ConflictView {
  id: string;
  kind: string;
  identityKind: 'user' | 'group';
  status: string;
  claimant: Party;
  holder: Party | null;
  account: { targetId: string | null; by: string; candidates?: { targetId: string; by: string }[] };
  lastSeenAt: string | null;
  resolution?: { action: string; targetId: string | null } | null;
}

interface ConflictPage {
  total: number;
  items: ConflictView[];
  nextCursor: string | null;
}

/**
 * `scim-bridge conflicts [--status] [--resolve ID --link|--ignore] [--target ID]`: lists identities
 * two inputs claim (open ones by default), or resolves one — link: the claimant's input becomes the
 * owner of the platform account; ignore: the claimant stays parked, no longer reported.
 */
export async function conflictsCommand(
  context: AdminCommandContext,
  options: ConflictsOptions,
): Promise<number> {
  if (options.resolve !== undefined) return resolve(context, options);
  if (options.link || options.ignore || options.target !== undefined) {
    throw new CliError(
      'invalid_argument',
      '--link, --ignore and --target go with --resolve ID',
      'list with `scim-bridge conflicts`, then `scim-bridge conflicts --resolve ID --link`',
    );
  }
  const { client, write } = context;
  const items: ConflictView[] = [];
  let cursor: string | null = '0';
  let total = 0;
  while (cursor !== null && items.length < options.limit) {
    const query: URLSearchParams = new URLSearchParams({
      status: options.status ?? 'open',
      limit: String(Math.min(options.limit - items.length, 200)),
      cursor,
    });
    const { body }: { body: ConflictPage } = await client.call<ConflictPage>(
      'GET',
      `/admin/conflicts?${query}`,
    );
    items.push(...body.items);
    total = body.total;
    cursor = body.nextCursor;
  }
  write(formatConflicts(items, total, options.status ?? 'open', cursor !== null));
  return 0;
}

async function resolve({ client, write }: AdminCommandContext, options: ConflictsOptions): Promise<number> {
  if (options.link === options.ignore) {
    throw new CliError(
      'invalid_argument',
      '--resolve ID needs one of --link or --ignore',
      'e.g. `scim-bridge conflicts --resolve ID --ignore`',
    );
  }
  if (options.ignore && options.target !== undefined) {
    throw new CliError(
      'invalid_argument',
      '--target names the platform account of a --link',
      'drop --target, or use --link',
    );
  }
  const body = {
    action: options.link ? 'link' : 'ignore',
    ...(options.target === undefined ? {} : { targetId: options.target }),
  };
  const path = `/admin/conflicts/${encodeURIComponent(options.resolve ?? '')}/resolve`;
  const { body: conflict } = await client.call<ConflictView>('POST', path, body);
  const who = party(conflict.claimant);
  write(
    options.link
      ? `Linked: ${who} now owns ${linkedAccount(conflict)}; it is reconciled next.`
      : `Ignored: ${who} stays parked and is no longer reported.`,
  );
  return 0;
}

export function formatConflicts(
  items: readonly ConflictView[],
  total: number,
  status: string,
  more: boolean,
): string {
  if (items.length === 0) return status === 'open' ? 'No open conflicts.' : `No ${status} conflicts.`;
  const rows = items.map((c) => [
    c.id,
    `${c.kind}${status === 'open' ? '' : ` (${c.status})`}`,
    `${c.identityKind} ${party(c.claimant)}`,
    c.holder ? party(c.holder) : '—',
    account(c),
    shortTime(c.lastSeenAt),
  ]);
  return [
    formatTable(['conflict', 'kind', 'claimant (parked)', 'holder', 'platform account', 'last seen'], rows),
    '',
    `${items.length} shown, ${total} ${status === 'all' ? 'in all' : status}${more ? ' (more: raise --limit)' : ''}. ` +
      'Resolve one with `scim-bridge conflicts --resolve ID --link` (or --ignore).',
  ].join('\n');
}

function party(p: Party): string {
  return `${p.owner ?? '?'}:${p.id}${p.name ? ` (${p.name})` : ''}`;
}

function account(c: ConflictView): string {
  if (c.account.candidates?.length) {
    return c.account.candidates.map((candidate) => `${candidate.targetId} by ${candidate.by}`).join(' or ');
  }
  return c.account.targetId ? `${c.account.targetId} by ${c.account.by}` : `none yet (by ${c.account.by})`;
}

function linkedAccount(c: ConflictView): string {
  const targetId = c.resolution?.targetId ?? c.account.targetId;
  return targetId ? `platform account ${targetId}` : 'its platform account (matched when reconciled)';
}

export function parseConflictStatus(value: string): 'open' | 'ignored' | 'all' {
  if (value === 'open' || value === 'ignored' || value === 'all') return value;
  throw new InvalidArgumentError('expected open, ignored or all');
}

import type { AdminCommandContext } from './admin-command.js';
import { shortTime } from './admin-command.js';
import { formatTable } from './table.js';

export interface FailuresOptions {
  kind?: 'user' | 'group';
  code?: string;
  /** Most failures listed. */
  limit: number;
  retry?: boolean;
}

interface FailureItem {
  key: string;
  name: string | null;
  failedAt: string | null;
  error: { code: string; status?: number; message: string; detail?: string } | null;
}

interface FailurePage {
  total: number;
  items: FailureItem[];
  nextCursor: string | null;
}

/**
 * `scim-bridge failures [--kind] [--code] [--retry]`: lists identities in permanent failure, newest
 * first; with --retry, enqueues all that match again. Exit 0 either way (1 only on error).
 */
export async function failuresCommand(
  { client, write }: AdminCommandContext,
  options: FailuresOptions,
): Promise<number> {
  const filter = {
    ...(options.kind ? { kind: options.kind } : {}),
    ...(options.code ? { code: options.code } : {}),
  };
  if (options.retry) {
    const { body } = await client.call<{ retried: number }>('POST', '/admin/failures/retry', {
      all: true,
      ...filter,
    });
    write(`Queued ${body.retried} ${body.retried === 1 ? 'identity' : 'identities'} for retry.`);
    return 0;
  }
  const items: FailureItem[] = [];
  let cursor: string | null = '0';
  let total = 0;
  while (cursor !== null && items.length < options.limit) {
    const query: URLSearchParams = new URLSearchParams({
      ...filter,
      limit: String(Math.min(options.limit - items.length, 500)),
      cursor,
    });
    const { body }: { body: FailurePage } = await client.call<FailurePage>('GET', `/admin/failures?${query}`);
    items.push(...body.items);
    total = body.total;
    cursor = body.nextCursor;
  }
  write(formatFailures(items, total, cursor !== null));
  return 0;
}

export function formatFailures(items: readonly FailureItem[], total: number, more: boolean): string {
  if (items.length === 0) return total === 0 ? 'No failures.' : `No failures match (${total} in all).`;
  const rows = items.map((f) => [
    f.key,
    f.name ?? '—',
    f.error ? `${f.error.code}${f.error.status ? ` (${f.error.status})` : ''}` : '—',
    clip(f.error?.detail ?? f.error?.message ?? '—', 60),
    shortTime(f.failedAt),
  ]);
  return [
    formatTable(['identity', 'name', 'error', 'detail', 'failed'], rows),
    '',
    `${items.length} shown, ${total} in failure${more ? ' (more: raise --limit)' : ''}. ` +
      'Retry with `scim-bridge failures --retry`; explain one with `scim-bridge explain user <id>`.',
  ].join('\n');
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { adminClientFromEnv } from './admin-client.js';
import { CliError, fileUnreadable } from './cli-error.js';
import { watchSync, type SyncView } from './sync-summary-lines.js';

export interface PreviewCommandOptions {
  input?: string;
  candidate: string;
  url?: string;
}

interface PreviewView {
  jobId: string;
  state: string;
  error?: { message: string };
  plan?: { holdReasons?: string[] };
  preview?: { counts: Record<string, { users: number; groups: number }>; renames: number };
}

interface Page {
  total: number;
  items: {
    kind: string;
    id: string;
    name: string | null;
    reason?: string;
    with?: string;
    changes?: Change[];
  }[];
}
interface Change {
  attribute: string;
  before: unknown;
  after: unknown;
}

const CATEGORIES = ['entering', 'leaving', 'changed', 'unmappable', 'collisions'] as const;
const SHOWN = 20;

/**
 * `scim-bridge preview --input NAME --candidate FILE`: plans a full sync of the input with a
 * candidate scope and mapping (YAML or JSON: {scope, mapping}, as under directory: in the
 * configuration) against the source as it is now, writes nothing, and prints what would change:
 * counts, then the first identities of each category by name (docs/scope-and-mapping.md).
 */
export async function previewCommand(options: PreviewCommandOptions): Promise<number> {
  let candidate: unknown;
  try {
    candidate = parseYaml(readFileSync(options.candidate, 'utf8'));
  } catch (error) {
    throw fileUnreadable(options.candidate, error);
  }
  if (typeof candidate !== 'object' || candidate === null)
    throw new CliError(
      'invalid_argument',
      `${options.candidate} holds no scope or mapping`,
      'see docs/scope-and-mapping.md',
    );
  const client = adminClientFromEnv(options.url);
  const started = await client.call<{ jobId: string }>('POST', '/admin/sync', {
    ...(options.input === undefined ? {} : { input: options.input }),
    dryRun: true,
    candidate,
  });
  const { jobId } = started.body;
  const view = (await watchSync(
    async () => (await client.call<SyncView>('GET', `/admin/sync/${jobId}`)).body,
  )) as unknown as PreviewView;
  if (view.state === 'failed') {
    process.stdout.write(`Preview ${jobId} failed: ${view.error?.message ?? 'unknown error'}\n`);
    return 1;
  }
  const lines = [`Preview ${jobId} (nothing was written)`];
  for (const category of [...CATEGORIES, 'unchanged'] as const) {
    const c = view.preview?.counts[category] ?? { users: 0, groups: 0 };
    lines.push(`  ${category.padEnd(10)} ${c.users} users, ${c.groups} groups`);
  }
  const guards = view.plan?.holdReasons ?? [];
  lines.push(`  guards it would trip: ${guards.length > 0 ? guards.join(', ') : 'none'}`);
  for (const category of CATEGORIES) {
    const page = (
      await client.call<Page>('GET', `/admin/sync/${jobId}/preview?category=${category}&limit=${SHOWN}`)
    ).body;
    if (page.total === 0) continue;
    lines.push(`${category} (${page.total}):`);
    for (const item of page.items)
      lines.push(`  ${item.kind} ${item.name ?? item.id} (${item.id})${detail(item)}`);
    if (page.total > page.items.length) lines.push(`  … and ${page.total - page.items.length} more`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function detail(item: Page['items'][number]): string {
  if (item.reason) return `: ${item.reason}`;
  if (item.with) return `: the name of ${item.with}`;
  if (item.changes)
    return `: ${item.changes.map((c) => `${c.attribute} ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`).join(', ')}`;
  return '';
}

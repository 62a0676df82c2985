import { adminClientFromEnv } from './admin-client.js';
import { readJsonFile } from './input-file.js';
import { exitCodeFor, formatSyncResult, watchSync, type SyncView } from './sync-report.js';

export interface SyncCommandOptions {
  dryRun?: boolean;
  snapshot?: string;
  wait?: boolean;
  allowEmpty?: boolean;
  url?: string;
}

const SNAPSHOT_FORM = 'a snapshot is {"users": [...], "groups": [...]}';

/** `scim-bridge sync`: starts a full reconciliation on a running bridge through its admin API. */
export async function syncCommand(options: SyncCommandOptions): Promise<number> {
  const client = adminClientFromEnv(options.url);
  const body: Record<string, unknown> = { dryRun: options.dryRun ?? false };
  if (options.allowEmpty) body.allowEmpty = true;
  if (options.snapshot) body.snapshot = readJsonFile(options.snapshot, SNAPSHOT_FORM);
  const started = await client.call<{ jobId: string; started: boolean }>('POST', '/admin/sync', body);
  const { jobId } = started.body;
  process.stdout.write(
    started.body.started ? `Started sync ${jobId}\n` : `A sync is already running: ${jobId}\n`,
  );
  if (!options.wait) return 0;
  const view = await watchSync(async () => (await client.call<SyncView>('GET', `/admin/sync/${jobId}`)).body);
  process.stdout.write(`${formatSyncResult(view)}\n`);
  return exitCodeFor(view);
}

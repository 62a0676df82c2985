import { adminClientFromEnv } from './admin-client.js';
import { CliError } from './cli-error.js';
import { snapshotUpload } from './snapshot-upload.js';
import { exitCodeFor, formatSyncResult, watchSync, type SyncView } from './sync-summary-lines.js';

export interface SyncCommandOptions {
  input?: string;
  dryRun?: boolean;
  snapshot?: string;
  wait?: boolean;
  allowEmpty?: boolean;
  linkOnly?: boolean;
  url?: string;
}

/**
 * `scim-bridge sync`: starts a full reconciliation on a running bridge through its admin API. A
 * `--snapshot` file (JSON or NDJSON) is streamed to it as NDJSON, never read whole.
 */
export async function syncCommand(options: SyncCommandOptions): Promise<number> {
  if (options.input !== undefined && options.snapshot !== undefined)
    throw new CliError(
      'invalid_argument',
      "--input with --snapshot: a snapshot replaces the directory's identities",
      'leave out --input to push a snapshot',
    );
  const client = adminClientFromEnv(options.url);
  const flags = {
    dryRun: options.dryRun ?? false,
    allowEmpty: options.allowEmpty ?? false,
    linkOnly: options.linkOnly ?? false,
  };
  const started = options.snapshot
    ? await pushSnapshot(client, options.snapshot, flags)
    : await client.call<{ jobId: string; started: boolean }>('POST', '/admin/sync', {
        ...(options.input === undefined ? {} : { input: options.input }),
        dryRun: flags.dryRun,
        ...(flags.allowEmpty ? { allowEmpty: true } : {}),
        ...(flags.linkOnly ? { linkOnly: true } : {}),
      });
  const { jobId } = started.body;
  process.stdout.write(
    started.body.started ? `Started sync ${jobId}\n` : `A sync is already running: ${jobId}\n`,
  );
  if (!options.wait) return 0;
  const view = await watchSync(async () => (await client.call<SyncView>('GET', `/admin/sync/${jobId}`)).body);
  process.stdout.write(`${formatSyncResult(view)}\n`);
  return exitCodeFor(view);
}

async function pushSnapshot(
  client: ReturnType<typeof adminClientFromEnv>,
  path: string,
  flags: { dryRun: boolean; allowEmpty: boolean; linkOnly: boolean },
) {
  const upload = await snapshotUpload(path, flags);
  // Problems name the lines the bridge received: an NDJSON file's own line numbers (without the
  // options line the upload put first); those of a JSON file are named by their place in its arrays.
  const problemsOf = (text: string) =>
    upload.format === 'json'
      ? text.replace(/"line \d+: /g, '"')
      : text.replace(/"line (\d+): /g, (_, n: string) => `"line ${Number(n) - upload.linesAdded()}: `);
  return client.upload<{ jobId: string; started: boolean }>(
    '/admin/sync',
    upload.body,
    'application/x-ndjson',
    problemsOf,
  );
}

import { Command, InvalidArgumentError } from 'commander';
import { runAdminCommand } from './admin-command.js';
import { checkConfigCommand } from './check-config.command.js';
import { cliAction } from './cli-action.js';
import { conflictsCommand, parseConflictStatus, type ConflictsOptions } from './conflicts.command.js';
import { explainCommand } from './explain.command.js';
import { failuresCommand, type FailuresOptions } from './failures.command.js';
import { sendEventCommand } from './send-event.command.js';
import { demoCommand } from './demo.command.js';
import { referenceTargetCommand, type ReferenceTargetCommandOptions } from './reference-target.command.js';
import { statusCommand } from './status.command.js';
import { syncCommand, type SyncCommandOptions } from './sync.command.js';
import { previewCommand, type PreviewCommandOptions } from './preview.command.js';
import { provisionCommand, type ProvisionCommandOptions } from './provision.command.js';
import { runRole, type Role } from '../main.js';

/**
 * `scim-bridge <command>`: the package's bin. Every action goes through cliAction, the CLI's one
 * error path: a failure prints one line to stderr and exits 1 (cli-error.ts).
 */
export function buildProgram(): Command {
  const program = new Command('scim-bridge')
    .description('Identity provider → platform SCIM bridge')
    .showHelpAfterError()
    .enablePositionalOptions();
  addRoleCommands(program);
  program
    .command('check-config')
    .description('validate the configuration and print it with secrets masked')
    .action(cliAction('check-config', () => checkConfigCommand()));
  program
    .command('sync')
    .description('start a full reconciliation on a running bridge (admin API; token from ADMIN_TOKEN)')
    .option('--input <name>', 'the input to read in full (okta, directory:<name>); default the directory')
    .option('--dry-run', 'compute and print the plan; write nothing')
    .option('--snapshot <file>', 'a directory snapshot (JSON) to reconcile against')
    .option('--wait', 'show progress until it ends, then the summary')
    .option('--allow-empty', 'the directory really is empty: do not refuse a source that lists no users')
    .option(
      '--link-only',
      'onboarding: record the matches between source and platform as managed; write nothing to the platform',
    )
    .option('--url <url>', "the bridge's base URL", undefined)
    .action(cliAction('sync', (options: SyncCommandOptions) => syncCommand(options)));
  program
    .command('preview')
    .description('plan a sync with a candidate scope and mapping (a YAML or JSON file); write nothing')
    .requiredOption('--candidate <file>', 'the candidate: {scope: …, mapping: …}, as under directory:')
    .option('--input <name>', 'the input to read in full (okta, directory:<name>); default the directory')
    .option('--url <url>', "the bridge's base URL", undefined)
    .action(cliAction('preview', (options: PreviewCommandOptions) => previewCommand(options)));
  addProvisionCommand(program);
  addOperatingCommands(program);
  addToolCommands(program);
  return program;
}

/** provision: one identity read from its input now and applied alone, through the admin API. */
function addProvisionCommand(program: Command): void {
  program
    .command('provision')
    .description(
      "provision on demand: read one identity from its input's source now, show scope, mapping, match and action, and apply it alone",
    )
    .argument('<kind>', 'user or group', parseKind)
    .argument('<key>', 'its id at the source (LDAP: entryUUID, objectGUID, or its DN; Okta: its id)')
    .option('--input <name>', 'the input to read it from (okta, directory:<name>); needed when several can')
    .option('--dry-run', 'show the steps; write nothing (the platform sees look-ups only)')
    .option(
      '--wait <seconds>',
      'how long an apply waits for the platform to match (0 to 120)',
      parsePositiveInt,
      20,
    )
    .option('--url <url>', "the bridge's base URL (default http://127.0.0.1:$PORT)")
    .action(
      cliAction(
        'provision',
        (kind: 'user' | 'group', key: string, options: ProvisionCommandOptions & { url?: string }) =>
          runAdminCommand(options.url, (context) => provisionCommand(context, kind, key, options)),
      ),
    );
}

/** all, serve, worker: a bridge's roles, started from the configuration in the environment. */
function addRoleCommands(program: Command): void {
  const roles: [Role, string][] = [
    ['all', 'HTTP server and workers in one process'],
    ['serve', 'HTTP server only'],
    ['worker', 'workers and scheduler only'],
  ];
  for (const [role, description] of roles) {
    program
      .command(role, { isDefault: role === 'all' })
      .description(description)
      .action(cliAction(role, () => runRole(role), { server: true, portSetting: 'PORT' }));
  }
}

/**
 * status, failures, explain, conflicts: read a running bridge's admin API (--url; token from
 * ADMIN_TOKEN).
 */
function addOperatingCommands(program: Command): void {
  const url = ['--url <url>', "the bridge's base URL (default http://127.0.0.1:$PORT)"] as const;
  program
    .command('status')
    .description('queue depths, last sync, target health, failure count, as a table (exit 1 unless healthy)')
    .option(...url)
    .action(cliAction('status', (options: { url?: string }) => runAdminCommand(options.url, statusCommand)));
  program
    .command('failures')
    .description('identities the platform rejected for good, newest first; --retry enqueues them again')
    .option('--kind <kind>', 'user or group', parseKind)
    .option('--code <code>', 'only this error code, e.g. target_invalid_request')
    .option('--limit <n>', 'most failures listed', parsePositiveInt, 100)
    .option('--retry', 'retry every failure that matches (instead of listing)')
    .option(...url)
    .action(
      cliAction('failures', (options: FailuresOptions & { url?: string }) =>
        runAdminCommand(options.url, (context) => failuresCommand(context, options)),
      ),
    );
  program
    .command('explain')
    .description("print an identity's trace: desired state, target id, last error, history")
    .argument('<kind>', 'user or group', parseKind)
    .argument(
      '<key>',
      "the id (the bridge's or the source's), the userName / displayName, the IdP's externalId, or the platform id",
    )
    .option(...url)
    .action(
      cliAction('explain', (kind: 'user' | 'group', key: string, options: { url?: string }) =>
        runAdminCommand(options.url, (context) => explainCommand(context, kind, key)),
      ),
    );
  program
    .command('conflicts')
    .description('identities two inputs claim; --resolve ID with --link or --ignore settles one')
    .option('--status <status>', 'open (default), ignored or all', parseConflictStatus)
    .option('--limit <n>', 'most conflicts listed', parsePositiveInt, 100)
    .option('--resolve <id>', 'the conflict to resolve')
    .option('--link', "the claimant's input becomes the owner of the platform account")
    .option('--ignore', 'the claimant stays parked and is no longer reported')
    .option('--target <id>', 'with --link on an ambiguous conflict: the platform account to link')
    .option(...url)
    .action(
      cliAction('conflicts', (options: ConflictsOptions & { url?: string }) =>
        runAdminCommand(options.url, (context) => conflictsCommand(context, options)),
      ),
    );
}

/** demo, reference-target, send-event: trying the bridge out and testing an installation. */
function addToolCommands(program: Command): void {
  program
    .command('demo')
    .description(
      'embedded Redis, the reference target and the demo directory, reconciled with a progress bar',
    )
    .action(cliAction('demo', () => demoCommand(), { server: true, portSetting: 'PORT' }));
  program
    .command('reference-target')
    .description('run the platform emulation (the reference target) as a server')
    .option('--port <n>', 'port (0 picks a free one)', parsePositiveInt, 8090)
    .option('--host <host>', 'interface', '127.0.0.1')
    .option('--token <token>', 'SCIM bearer token (default: TARGET_TOKEN)')
    .option('--page-cap <n>', 'largest page a list returns', parsePositiveInt, 100)
    .option('--latency <ms>', 'latency added to every SCIM request', parsePositiveInt, 0)
    .option('--seed <n>', 'seed of the fault generator', parsePositiveInt)
    .option(
      '--control-port <n>',
      'serve /__control on a port of its own (stays up during outages)',
      parsePositiveInt,
    )
    .option('--log', 'one JSON line per SCIM request')
    .action(
      cliAction(
        'reference-target',
        (options: ReferenceTargetCommandOptions) => referenceTargetCommand(options),
        { server: true, portSetting: '--port (or --control-port)' },
      ),
    );
  program
    .command('send-event')
    .description('sign events with WEBHOOK_SECRET and post them to a bridge (FILE, or - for stdin)')
    .argument('<file>', 'one event, {"events": [...]}, an array of events, or one event per line')
    .option('--url <url>', 'the bridge (default $BRIDGE_URL or http://127.0.0.1:$PORT)')
    .option('--batch-size <n>', 'events per request, at most 1000', parsePositiveInt, 1000)
    .action(
      cliAction('send-event', (file: string, options: { url?: string; batchSize: number }) =>
        sendEventCommand(file, options),
      ),
    );
}

function parseKind(value: string): 'user' | 'group' {
  if (value === 'user' || value === 'group') return value;
  throw new InvalidArgumentError('expected user or group');
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

import { adminClientFromEnv, type AdminClient } from './admin-client.js';

/** What the admin-API commands (status, failures, explain) share: where the bridge is, where output goes. */
export interface AdminCommandContext {
  client: AdminClient;
  write: (text: string) => void;
}

/**
 * Runs an admin-API command from the command line: the bridge at --url (default
 * http://127.0.0.1:$PORT), the token from ADMIN_TOKEN or ADMIN_TOKEN_FILE. Resolves to the command's
 * exit code; failures throw (cliAction prints them).
 */
export async function runAdminCommand(
  url: string | undefined,
  command: (context: AdminCommandContext) => Promise<number>,
): Promise<number> {
  const client = adminClientFromEnv(url);
  return command({ client, write: (text) => process.stdout.write(`${text}\n`) });
}

/** An ISO time as shown in tables: to the second, UTC. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—';
}

import { AdminClient, adminTokenFromEnv, defaultAdminUrl } from './admin-client.js';

/** What the admin-API commands (status, failures, explain) share: where the bridge is, where output goes. */
export interface AdminCommandContext {
  client: AdminClient;
  write: (text: string) => void;
}

/**
 * Runs an admin-API command from the command line: the bridge at --url (default
 * http://127.0.0.1:$PORT), the token from ADMIN_TOKEN or ADMIN_TOKEN_FILE. Failures print one line
 * and exit 1; the command's own result sets the exit code otherwise.
 */
export async function runAdminCommand(
  name: string,
  url: string | undefined,
  command: (context: AdminCommandContext) => Promise<number>,
): Promise<void> {
  try {
    const token = adminTokenFromEnv();
    if (!token) throw new Error('set ADMIN_TOKEN (or ADMIN_TOKEN_FILE) to the bridge admin token');
    const client = new AdminClient({ url: url ?? defaultAdminUrl(), token });
    process.exitCode = await command({ client, write: (text) => process.stdout.write(`${text}\n`) });
  } catch (error) {
    process.stderr.write(`scim-bridge ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

/** An ISO time as shown in tables: to the second, UTC. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—';
}

import { isBridgeError } from '../../../domain/errors.js';
import type { ReadOptions } from '../../../domain/snapshot-sink.js';
import type { SourceCheck } from '../directory-source.js';
import { query } from './entra-items.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * What check-config says of an `entra` source: the sign-in (a token for the app), then one read of
 * a single item (`$top=1`) for each application permission the reads need — `User.Read.All`
 * (users and users/delta), `GroupMember.Read.All` (groups, groups/delta with members, members),
 * and with ENTRA_ASSIGNED_TO `Application.Read.All` (the enterprise application's assignments) —
 * each refused one named. Nothing is written and nothing kept.
 */
export async function checkEntra(
  graph: GraphSession,
  assignedTo: string,
  options: ReadOptions = {},
): Promise<SourceCheck[]> {
  const gate: RequestGate = options.signal ? { signal: options.signal } : {};
  const signIn = await attempt('sign-in', () => graph.signIn(gate));
  if (!signIn.ok) return [signIn];
  const reads: [string, string][] = [
    ['User.Read.All', query('users', { $select: 'id', $top: '1' })],
    ['GroupMember.Read.All', query('groups', { $select: 'id', $top: '1' })],
  ];
  if (assignedTo !== '') {
    const path = `servicePrincipals/${encodeURIComponent(assignedTo)}/appRoleAssignedTo`;
    reads.push(['Application.Read.All', query(path, { $select: 'principalId', $top: '1' })]);
  }
  const checks = [signIn];
  for (const [permission, path] of reads)
    checks.push(await attempt(permission, () => graph.get(path, permission, gate).then(() => undefined)));
  return checks;
}

async function attempt(what: string, run: () => Promise<void>): Promise<SourceCheck> {
  try {
    await run();
    return { what, ok: true };
  } catch (error) {
    if (isBridgeError(error) && error.status === 404 && what === 'Application.Read.All')
      return {
        what,
        ok: false,
        detail:
          'ENTRA_ASSIGNED_TO names no enterprise application in the tenant: give the Object ID on the ' +
          "enterprise application's Overview page, not the app registration's client id",
      };
    return { what, ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

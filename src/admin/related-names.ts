import type { DesiredGroup } from '../domain/identity.js';
import type { IdentityNameQueries } from '../store/identity-names.queries.js';
import type { IdentityTrace } from '../store/identity-trace.queries.js';

/** Related identities named at most per trace: a view pages through more, it never lists 100,000. */
export const RELATED_NAMES = 500;

/**
 * The names of the identities a trace lists, by source id: a user's groups (displayName), a group's
 * members (userName), the first RELATED_NAMES in id order. An id no longer desired has no name.
 */
export async function relatedNames(
  names: IdentityNameQueries | undefined,
  trace: IdentityTrace,
): Promise<Map<string, string> | undefined> {
  if (!names) return undefined;
  if (trace.kind === 'user') return names.names('group', (trace.groups ?? []).slice(0, RELATED_NAMES));
  const members = (trace.desired as DesiredGroup | undefined)?.members ?? [];
  return names.names('user', members.slice(0, RELATED_NAMES));
}

import type { DirectMembers } from '../../../domain/group-graph.js';
import { DIRECTORY, type GoogleApi } from './google-api.js';
import { idField, walkList } from './google-pages.js';
import type { GoogleGroup } from './google-items.js';

/**
 * A group's direct members as Google lists them (members.list: 200 a page, `id`, `email`, `role`,
 * `type`, `status`), as the group graph holds them (domain/group-graph.ts): users and groups by id.
 * Owners and managers are members (ssosync #189). A `CUSTOMER` member is everyone in the account
 * (Bitwarden's directory-connector #55): it is held as the pseudo-group EVERYONE, which the reads
 * expand to every user. Left out, and counted: members outside the customer — users with no
 * `status` (Google gives external members none; ssosync and idp-scim-sync skip them) — and
 * subgroups that are not the customer's (another customer's group, whose members.list Google
 * refuses with 403: Firezone skips them).
 */

/** The pseudo-group a `CUSTOMER` member stands for: every user of the account. */
export const EVERYONE = '#customer';

export type Role = 'OWNER' | 'MANAGER' | 'MEMBER';

export interface LeftOut {
  /** Users outside the customer (no status). */
  external: number;
  /** Subgroups that are not the customer's. */
  foreignGroups: number;
  /** Members of another type, or without an id. */
  other: number;
}

export function noneLeftOut(): LeftOut {
  return { external: 0, foreignGroups: 0, other: 0 };
}

export interface GroupMembers extends DirectMembers {
  /** Users who are owners or managers of the group, with their role. */
  readonly roles: readonly (readonly [string, Role])[];
}

const MEMBER_FIELDS = 'nextPageToken,members(id,email,role,type,status)';

/** Every direct member of a group, classified; `ours` tells the customer's groups. */
export async function readMembers(
  api: GoogleApi,
  group: GoogleGroup,
  ours: (groupId: string) => boolean,
  leftOut: LeftOut,
  signal?: AbortSignal,
): Promise<GroupMembers> {
  const users: string[] = [];
  const groups: string[] = [];
  const roles: [string, Role][] = [];
  const counted = Number(group.directMembersCount ?? '0');
  const walk = walkList(api, {
    path: `${DIRECTORY}/groups/${encodeURIComponent(group.id)}/members`,
    params: { fields: MEMBER_FIELDS },
    itemsKey: 'members',
    pageSize: 200,
    empty: counted > 0 ? 'expected' : 'allowed',
    idOf: idField,
    ...(signal ? { signal } : {}),
  });
  for await (const page of walk) {
    for (const raw of page.items) {
      const member = raw as { id?: unknown; role?: unknown; type?: unknown; status?: unknown };
      const id = typeof member.id === 'string' && member.id !== '' ? member.id : undefined;
      if (member.type === 'CUSTOMER') groups.push(EVERYONE);
      else if (id === undefined) leftOut.other++;
      else if (member.type === 'GROUP') {
        if (ours(id)) groups.push(id);
        else leftOut.foreignGroups++;
      } else if (member.type === 'USER') {
        if (typeof member.status !== 'string' || member.status === '') leftOut.external++;
        else {
          users.push(id);
          if (member.role === 'OWNER' || member.role === 'MANAGER') roles.push([id, member.role]);
        }
      } else leftOut.other++;
    }
  }
  return { users, groups, roles };
}

/**
 * Runs `task` over the items, at most `limit` at once; the first failure stops the others from
 * starting and is thrown once those under way have settled.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

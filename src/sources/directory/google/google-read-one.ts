import { isBridgeError } from '../../../domain/errors.js';
import type { PolicyKind } from '../../../domain/identity-policy.js';
import type { OneRead, SourceIdentity } from '../../../domain/source-identity.js';
import { DIRECTORY, entityPath, GoogleApi, type GoogleAccess } from './google-api.js';
import {
  groupItem,
  groupNames,
  isGoogleGroup,
  isGoogleUser,
  userFields,
  userItem,
  type GoogleGroup,
  type GoogleNeeds,
  type GoogleUser,
  type GroupNames,
  type UserGroups,
} from './google-items.js';
import { EVERYONE, forEachConcurrently, noneLeftOut, readMembers } from './google-members.js';
import { idField, walkList } from './google-pages.js';

/**
 * One Google user or group read now (provision on demand), by its id or an address (primary or
 * alias), as a full read makes it: users.get; groups.get and its members, nested groups walked
 * down (cycles cut; another customer's subgroup, which Google refuses with 403, left out), each
 * member read as a user. With a scope or mapping that reads membership, a user's groups are read
 * up from it (groups.list `userKey`, which takes a user or a group). A group holding everyone (a
 * CUSTOMER member) is not seen from a user's side: only a full read finds those.
 */
export async function readGoogleOne(
  access: GoogleAccess,
  needs: GoogleNeeds,
  kind: PolicyKind,
  key: string,
  signal?: AbortSignal,
): Promise<OneRead> {
  const api = new GoogleApi(access);
  try {
    return kind === 'users'
      ? await readUser(api, needs, key, signal)
      : await readGroup(api, needs, key, signal);
  } finally {
    await api.close();
  }
}

async function readUser(
  api: GoogleApi,
  needs: GoogleNeeds,
  key: string,
  signal?: AbortSignal,
): Promise<OneRead> {
  const user = await getUser(api, needs, key, signal);
  if (user === undefined) return { outcome: 'absent', reason: `${api.access.label} has no user ${key}` };
  return { outcome: 'found', identity: user };
}

/** A user by id or address as the full read makes it; undefined when Google has none. */
export async function getUser(
  api: GoogleApi,
  needs: GoogleNeeds,
  key: string,
  signal?: AbortSignal,
): Promise<SourceIdentity | undefined> {
  const user = await fetchUser(api, needs, key, signal);
  if (user === undefined) return undefined;
  const groups = needs.membership ? await groupsAbove(api, user.id, needs.roles, signal) : undefined;
  return identityOf(user, needs, groups);
}

/** users.get by id or address (primary or alias), trimmed as the full read's; undefined on 404. */
export async function fetchUser(
  api: GoogleApi,
  needs: GoogleNeeds,
  key: string,
  signal?: AbortSignal,
): Promise<GoogleUser | undefined> {
  const params = { ...needs.projection, fields: userFields(needs) };
  const answer = await api.find(api.url(entityPath('users', key), params), signal);
  if (answer === undefined) return undefined;
  if (!isGoogleUser(answer.body)) throw api.invalid(answer.url, 'a user without an id or a primary address');
  return answer.body;
}

export function identityOf(user: GoogleUser, needs: GoogleNeeds, groups?: UserGroups): SourceIdentity {
  return { id: user.id, label: user.primaryEmail, item: userItem(user, needs, groups) };
}

async function readGroup(
  api: GoogleApi,
  needs: GoogleNeeds,
  key: string,
  signal?: AbortSignal,
): Promise<OneRead> {
  const answer = await findGroup(api, key, signal);
  if (answer === 'foreign')
    return {
      outcome: 'excluded',
      label: key,
      reason: "another customer's group: Google refuses to list its members",
    };
  if (answer === undefined) return { outcome: 'absent', reason: `${api.access.label} has no group ${key}` };
  const ids = await usersBelow(api, answer, signal);
  const members: SourceIdentity[] = [];
  await forEachConcurrently(ids, api.access.settings.concurrency, async (id) => {
    const user = await getUser(api, needs, id, signal);
    if (user) members.push(user);
  });
  const item = groupItem(
    answer,
    members.map((m) => m.id),
    needs,
  );
  return { outcome: 'found', identity: { id: answer.id, label: answer.email, item, members } };
}

/** A group by id or address; 'foreign' for another customer's (403), undefined when none. */
export async function findGroup(
  api: GoogleApi,
  key: string,
  signal?: AbortSignal,
): Promise<GoogleGroup | 'foreign' | undefined> {
  try {
    const answer = await api.find(api.url(entityPath('groups', key)), signal);
    if (answer === undefined) return undefined;
    if (!isGoogleGroup(answer.body)) throw api.invalid(answer.url, 'a group without an id or an address');
    return answer.body;
  } catch (error) {
    if (isBridgeError(error, 'source_unauthorized') && error.status === 403) return 'foreign';
    throw error;
  }
}

/** The users of a group, its nested groups walked down (a CUSTOMER member: every user). */
async function usersBelow(api: GoogleApi, top: GoogleGroup, signal?: AbortSignal): Promise<string[]> {
  const users = new Set<string>();
  const seen = new Set([top.id]);
  const leftOut = noneLeftOut();
  let everyone = false;
  for (let level: GoogleGroup[] = [top]; level.length > 0;) {
    const next: GoogleGroup[] = [];
    for (const group of level) {
      const members = await readMembers(api, group, () => true, leftOut, signal).catch((error: unknown) => {
        // A nested group of another customer: Google refuses its members (Firezone skips them).
        if (group !== top && isBridgeError(error, 'source_unauthorized') && error.status === 403)
          return undefined;
        throw error;
      });
      for (const id of members?.users ?? []) users.add(id);
      for (const id of members?.groups ?? []) {
        if (id === EVERYONE) everyone = true;
        else if (!seen.has(id)) {
          seen.add(id);
          next.push({ id, email: id, directMembersCount: '0' });
        }
      }
    }
    level = next;
  }
  return everyone ? allUsers(api, signal) : [...users];
}

async function allUsers(api: GoogleApi, signal?: AbortSignal): Promise<string[]> {
  const ids: string[] = [];
  const walk = walkList(api, {
    path: `${DIRECTORY}/users`,
    params: { customer: api.access.settings.customer, fields: 'nextPageToken,users(id)' },
    itemsKey: 'users',
    pageSize: 500,
    empty: 'never',
    idOf: idField,
    ...(signal ? { signal } : {}),
  });
  for await (const page of walk)
    for (const item of page.items) if (idField(item)) ids.push(idField(item) as string);
  return ids;
}

/**
 * The groups a user is in, directly or through nesting: groups.list `userKey` (a user's or a
 * group's direct groups), walked up; with `roles`, the direct groups it owns or manages
 * (members.list `roles=OWNER,MANAGER`).
 */
export async function groupsAbove(
  api: GoogleApi,
  userId: string,
  roles: boolean,
  signal?: AbortSignal,
): Promise<UserGroups> {
  const found = new Map<string, GroupNames>();
  const held: UserGroups = { groups: [], ownerOf: [], managerOf: [] };
  for (let level = [userId]; level.length > 0;) {
    const next: GroupNames[] = [];
    for (const key of level)
      next.push(...(await directGroups(api, key, signal)).filter((g) => !found.has(g.id)));
    for (const group of next) found.set(group.id, group);
    if (roles && level[0] === userId) Object.assign(held, await rolesIn(api, userId, next, signal));
    level = next.map((g) => g.id);
  }
  return { ...held, groups: [...found.values()] };
}

async function directGroups(api: GoogleApi, key: string, signal?: AbortSignal): Promise<GroupNames[]> {
  const groups: GroupNames[] = [];
  const walk = walkList(api, {
    path: `${DIRECTORY}/groups`,
    params: { userKey: key, fields: 'nextPageToken,groups(id,email,name,aliases)' },
    itemsKey: 'groups',
    pageSize: 200,
    empty: 'allowed',
    idOf: idField,
    ...(signal ? { signal } : {}),
  });
  for await (const page of walk)
    for (const raw of page.items) if (isGoogleGroup(raw)) groups.push(groupNames(raw));
  return groups;
}

/** The groups among these that the user owns or manages (their addresses). */
async function rolesIn(
  api: GoogleApi,
  userId: string,
  groups: readonly GroupNames[],
  signal?: AbortSignal,
): Promise<Pick<UserGroups, 'ownerOf' | 'managerOf'>> {
  const ownerOf: string[] = [];
  const managerOf: string[] = [];
  for (const group of groups) {
    const walk = walkList(api, {
      path: `${DIRECTORY}/groups/${encodeURIComponent(group.id)}/members`,
      params: { roles: 'OWNER,MANAGER', fields: 'nextPageToken,members(id,role)' },
      itemsKey: 'members',
      pageSize: 200,
      empty: 'allowed',
      idOf: idField,
      ...(signal ? { signal } : {}),
    });
    for await (const page of walk)
      for (const raw of page.items) {
        const member = raw as { id?: unknown; role?: unknown };
        if (member.id !== userId) continue;
        if (member.role === 'OWNER') ownerOf.push(group.email);
        else if (member.role === 'MANAGER') managerOf.push(group.email);
      }
  }
  return { ownerOf, managerOf };
}

import { flattenGroups, withAncestors, type StoredGroupEdges } from '../../../domain/group-graph.js';
import type { SourceChange } from '../../../domain/input.js';
import type { StoredLookup } from '../../../domain/source-lookup.js';
import type { GoogleApi } from './google-api.js';
import { untrusted } from './google-audit.js';
import type { ChangePlan } from './google-events.js';
import {
  groupItem,
  type GoogleGroup,
  type GoogleNeeds,
  type GoogleUser,
  type UserGroups,
} from './google-items.js';
import { groupEntries, groupKey, namesKey, storedNames, userEntries, userKey } from './google-lookup.js';
import { EVERYONE, noneLeftOut, readMembers, type GroupMembers } from './google-members.js';
import { fetchUser, findGroup, groupsAbove, identityOf } from './google-read-one.js';

/**
 * The changes of a change read: each user and group the audit records named, read again from the
 * Directory API (google-events.ts). An address is resolved both ways — as Google resolves it now
 * (users.get / groups.get take an address) and as the input's table last knew it (a renamed or
 * deleted user's old address no longer resolves) — and every id found is read by id: found, it is
 * an upsert (a renamed primary address is an update of the same id, never a delete and a create);
 * gone (404), a removal. The table only gains entries here: an old address keeps its id, so a late
 * record that names it still finds it. A group read again has its direct members read again into
 * the input's graph, and it and every group above it (and above a deleted one) are flattened again.
 * A new user joins the groups that hold everyone; a group that comes to hold everyone asks for a
 * full read (its members are every user, which a change read does not list).
 */
export interface ChangeContext {
  api: GoogleApi;
  needs: GoogleNeeds;
  edges: StoredGroupEdges;
  lookup: StoredLookup;
  signal?: AbortSignal;
  /** Users and groups read from the Directory API. */
  reads: number;
}

export async function changesOf(ctx: ChangeContext, plan: ChangePlan): Promise<SourceChange[]> {
  const everyone = await everyoneGroups(ctx.edges);
  const users = await userChanges(ctx, [...plan.users], everyone);
  const groups = await groupChanges(ctx, [...plan.groups], everyone);
  return [...users.changes, ...groups, ...users.joins];
}

async function everyoneGroups(edges: StoredGroupEdges): Promise<Set<string>> {
  const groups = await withAncestors(edges, [EVERYONE]);
  groups.delete(EVERYONE);
  return groups;
}

async function userChanges(
  ctx: ChangeContext,
  addresses: readonly string[],
  everyone: ReadonlySet<string>,
): Promise<{ changes: SourceChange[]; joins: SourceChange[] }> {
  const { api, needs, lookup, signal } = ctx;
  const known = await lookup.get(addresses.map(userKey));
  const found = new Map<string, GoogleUser | null>();
  for (const address of addresses) {
    ctx.reads++;
    const user = await fetchUser(api, needs, address, signal);
    if (user) found.set(user.id, user);
  }
  for (const id of known) {
    if (id === undefined || found.has(id)) continue;
    ctx.reads++;
    found.set(id, (await fetchUser(api, needs, id, signal)) ?? null);
  }
  const knownIds = new Set(known.filter((id): id is string => id !== undefined));
  const everyoneNames = needs.membership ? await storedNames(lookup, [...everyone]) : [];
  const changes: SourceChange[] = [];
  const joins: SourceChange[] = [];
  for (const [id, user] of found) {
    if (user === null) {
      changes.push({ op: 'remove', kind: 'users', id });
      continue;
    }
    const groups = needs.membership
      ? await withEveryone(groupsAbove(api, id, needs.roles, signal), everyoneNames)
      : undefined;
    const identity = identityOf(user, needs, groups);
    changes.push({ op: 'upsert', kind: 'users', item: identity.item, label: identity.label });
    await lookup.set(userEntries(user));
    // A user the table did not know is new (or back): it joins the groups that hold everyone.
    if (!knownIds.has(id))
      for (const groupId of everyone) joins.push({ op: 'members', groupId, add: [id], remove: [] });
  }
  return { changes, joins };
}

async function withEveryone(
  groups: Promise<UserGroups>,
  everyone: UserGroups['groups'],
): Promise<UserGroups> {
  const held = await groups;
  const ids = new Set(held.groups.map((g) => g.id));
  return { ...held, groups: [...held.groups, ...everyone.filter((g) => !ids.has(g.id))] };
}

async function groupChanges(
  ctx: ChangeContext,
  addresses: readonly string[],
  everyoneBefore: ReadonlySet<string>,
): Promise<SourceChange[]> {
  if (addresses.length === 0) return [];
  const { edges } = ctx;
  const found = await resolveGroups(ctx, addresses);
  const removed = [...found].filter(([, group]) => group === null).map(([id]) => id);
  const present = [...found.values()].filter((group): group is GoogleGroup => group !== null);
  // The groups above a deleted one lose its users: found before its edges go.
  const aboveRemoved = await withAncestors(edges, removed);
  await updateGraph(ctx, present, removed, found);
  const everyone = await everyoneGroups(edges);
  const newlyEveryone = [...everyone].find((id) => !everyoneBefore.has(id));
  if (newlyEveryone !== undefined) throw untrusted(`group ${newlyEveryone} now holds every user`);
  const affected = await withAncestors(
    edges,
    present.map((g) => g.id),
  );
  for (const id of aboveRemoved) affected.add(id);
  for (const id of removed) affected.delete(id);
  return [
    ...removed.map((id): SourceChange => ({ op: 'remove', kind: 'groups', id })),
    ...(await flattened(ctx, [...affected], found, everyone)),
  ];
}

/** The direct members of the groups read again, and the groups gone, into the input's graph and table. */
async function updateGraph(
  ctx: ChangeContext,
  present: readonly GoogleGroup[],
  removed: readonly string[],
  found: ReadonlyMap<string, GoogleGroup | null>,
): Promise<void> {
  const members = new Map<string, GroupMembers>();
  for (const group of present) {
    ctx.reads++;
    members.set(group.id, await readMembers(ctx.api, group, () => true, noneLeftOut(), ctx.signal));
  }
  const ours = await ourGroups(ctx.lookup, members, found);
  const kept = (m: GroupMembers) => ({
    users: m.users,
    groups: m.groups.filter((g) => g === EVERYONE || ours.has(g)),
  });
  await ctx.edges.update(
    new Map([
      ...removed.map((id) => [id, null] as const),
      ...[...members].map(([id, m]) => [id, kept(m)] as const),
    ]),
  );
  await ctx.lookup.set(present.flatMap(groupEntries));
}

/** Each address resolved now and as the table knew it; every id read (null: gone). */
async function resolveGroups(ctx: ChangeContext, addresses: readonly string[]) {
  const { api, lookup, signal } = ctx;
  const known = await lookup.get(addresses.map(groupKey));
  const found = new Map<string, GoogleGroup | null>();
  for (const address of addresses) {
    ctx.reads++;
    const group = await findGroup(api, address, signal);
    if (group !== undefined && group !== 'foreign') found.set(group.id, group);
  }
  for (const id of known) {
    if (id === undefined || found.has(id)) continue;
    ctx.reads++;
    const group = await findGroup(api, id, signal);
    if (group !== 'foreign') found.set(id, group ?? null);
  }
  return found;
}

/** The customer's groups among the read groups' subgroups: those the table knows, or read now. */
async function ourGroups(
  lookup: StoredLookup,
  members: ReadonlyMap<string, GroupMembers>,
  found: ReadonlyMap<string, GoogleGroup | null>,
): Promise<Set<string>> {
  const subgroups = [...new Set([...members.values()].flatMap((m) => m.groups))].filter(
    (g) => g !== EVERYONE,
  );
  const names = await lookup.get(subgroups.map(namesKey));
  return new Set(subgroups.filter((id, i) => names[i] !== undefined || (found.get(id) ?? null) !== null));
}

/** The groups flattened again from the graph, each as a full read gives it. */
async function flattened(
  ctx: ChangeContext,
  ids: readonly string[],
  found: ReadonlyMap<string, GoogleGroup | null>,
  everyone: ReadonlySet<string>,
): Promise<SourceChange[]> {
  const flat = await flattenGroups(
    ctx.edges,
    ids.filter((id) => !everyone.has(id)),
  );
  const changes: SourceChange[] = [];
  for (const id of ids) {
    let group = found.get(id) ?? undefined;
    if (group === undefined) {
      ctx.reads++;
      const read = await findGroup(ctx.api, id, ctx.signal);
      if (read === undefined || read === 'foreign') continue;
      group = read;
    }
    // A group that holds everyone keeps its members (every user): a change read does not list them.
    const members = everyone.has(id) ? undefined : (flat.get(id) ?? []);
    changes.push({
      op: 'upsert',
      kind: 'groups',
      item: groupItem(group, members, ctx.needs),
      label: group.email,
    });
  }
  return changes;
}

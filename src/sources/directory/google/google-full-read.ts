import { flattenGroups } from '../../../domain/group-graph.js';
import { SOURCE_BATCH, type ReadOptions, type SnapshotSink } from '../../../domain/snapshot-sink.js';
import { DIRECTORY, GoogleApi, type GoogleAccess } from './google-api.js';
import { Memberships, readGraph, type GroupGraph } from './google-graph.js';
import { groupItem, isGoogleUser, userFields, userItem, type GoogleNeeds } from './google-items.js';
import { groupEntries, userEntries, type Entry } from './google-lookup.js';
import { idField, walkList } from './google-pages.js';

/**
 * Google Workspace read in full (SPEC §5.5): the customer's groups and their direct members first
 * (google-graph.ts), then its users (users.list, 500 a page, `fields` trimmed, custom schemas only
 * when a scope or mapping reads them), each with its facts, then the groups with their members
 * flattened through nested groups (domain/group-graph.ts; a group holding everyone lists every
 * user read). A group member that is no user of the read is left out. At the end, and only for a
 * read that went through whole, the input's group graph and address table are replaced, for the
 * change reads to follow; what was left out is logged with its counts. Any failure fails the read
 * (google-pages.ts): a failed read removes nobody.
 */
export async function streamGoogle(
  access: GoogleAccess,
  needs: GoogleNeeds,
  sink: SnapshotSink,
  options: ReadOptions = {},
): Promise<void> {
  const { signal } = options;
  signal?.throwIfAborted();
  const api = new GoogleApi(access);
  try {
    const graph = await readGraph(api, needs.membership, signal);
    const memberships = new Memberships(graph);
    const entries: Entry[] = graph.groups.flatMap(groupEntries);
    const users = await streamUsers(api, needs, memberships, sink, entries, signal);
    const notUsers = await streamGroups(graph, memberships, users, needs, sink);
    await options.groupEdges?.replace(graph.edges);
    await options.lookup?.replace(entries);
    access.context.logger?.info(
      {
        input: access.context.owner,
        users: users.length,
        groups: graph.groups.length,
        ...graph.leftOut,
        notUsers,
      },
      'Google Workspace read in full',
    );
  } finally {
    await api.close();
  }
}

async function streamUsers(
  api: GoogleApi,
  needs: GoogleNeeds,
  memberships: Memberships,
  sink: SnapshotSink,
  entries: Entry[],
  signal?: AbortSignal,
): Promise<string[]> {
  const ids: string[] = [];
  const walk = walkList(api, {
    path: `${DIRECTORY}/users`,
    params: {
      customer: api.access.settings.customer,
      ...needs.projection,
      fields: `nextPageToken,users(${userFields(needs)})`,
    },
    itemsKey: 'users',
    pageSize: 500,
    // The administrator the service account acts for is a user of the customer: never empty.
    empty: 'never',
    idOf: idField,
    ...(signal ? { signal } : {}),
  });
  for await (const page of walk) {
    const items = page.items.map((raw) => {
      if (!isGoogleUser(raw)) return raw;
      ids.push(raw.id);
      entries.push(...userEntries(raw));
      return userItem(raw, needs, needs.membership ? memberships.of(raw.id) : undefined);
    });
    await sink.add('users', items, items.map(origin));
  }
  return ids;
}

/** The groups with their users, nested groups flattened; returns how many members were no user. */
async function streamGroups(
  graph: GroupGraph,
  memberships: Memberships,
  users: readonly string[],
  needs: GoogleNeeds,
  sink: SnapshotSink,
): Promise<number> {
  const known = new Set(users);
  const everyone = memberships.everyoneGroups;
  let notUsers = 0;
  for (let i = 0; i < graph.groups.length; i += SOURCE_BATCH) {
    const batch = graph.groups.slice(i, i + SOURCE_BATCH);
    const flat = await flattenGroups(
      graph.edges,
      batch.filter((g) => !everyone.has(g.id)).map((g) => g.id),
    );
    const items = batch.map((group) => {
      if (everyone.has(group.id)) return groupItem(group, users, needs);
      const members = flat.get(group.id) ?? [];
      const kept = members.filter((id) => known.has(id));
      notUsers += members.length - kept.length;
      return groupItem(group, kept, needs);
    });
    await sink.add(
      'groups',
      items,
      batch.map((g) => ({ label: g.email })),
    );
  }
  return notUsers;
}

function origin(item: unknown): { label?: string } {
  const user = item as { userName?: unknown; id?: unknown } | null;
  const label = typeof user?.userName === 'string' ? user.userName : user?.id;
  return typeof label === 'string' ? { label } : {};
}

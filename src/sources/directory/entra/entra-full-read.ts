import { flattenGroups, type MemoryGroupEdges } from '../../../domain/group-graph.js';
import { SOURCE_BATCH, type ReadOptions, type SnapshotSink } from '../../../domain/snapshot-sink.js';
import type { Logger } from '../../../ops/logger.js';
import { LEFT_OUT_REASON, leftOut, leftOutCount, markSoftDeleted, roundEdges } from './entra-graph-edges.js';
import { GROUP_SELECT, groupItem, idOf, labelOf, query, userItem, type GraphObject } from './entra-items.js';
import { readGroupRound, type GroupRound } from './entra-rounds.js';
import { inScope, readAssigned, type InScope } from './entra-scope.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * The tenant read whole (SPEC §5.5): users from `/users` with an explicit `$select`, `$top` up to
 * 999 a page; groups and every direct member from one initial round of `/groups/delta` with
 * `members` selected — one paged stream of groups and edges, no request per group (a group whose
 * members fill pages comes again with the next ones). The two are read side by side. Groups are
 * sent once every edge is known: each group's members are the users reachable through its nested
 * groups (domain/group-graph.ts), those the read listed; members that are neither users nor groups
 * are left out and reported (the read's skipped list, and a log line); so are users a group lists
 * but the users list does not (soft-deleted: group delta keeps them until the hard delete). With
 * ENTRA_ASSIGNED_TO the users wait for the groups, which say who is in scope (entra-scope.ts). The
 * graph read replaces the one the bridge keeps for the change reads.
 */

export interface ReadPlan {
  userSelect: readonly string[];
  pageSize: number;
  assignedTo: string;
}

export function groupsRoundLink(): string {
  return query('groups/delta', { $select: [...GROUP_SELECT, 'members'].join(',') });
}

export async function streamEntra(
  graph: GraphSession,
  sink: SnapshotSink,
  options: ReadOptions,
  plan: ReadPlan,
  logger?: Logger,
): Promise<void> {
  const gate: RequestGate = options.signal ? { signal: options.signal } : {};
  const users = { live: new Set<string>(), listed: new Set<string>() };
  const assigned = plan.assignedTo === '' ? undefined : await readAssigned(graph, plan.assignedTo, gate);
  const [round] = await together(gate, [
    (g) => readGroupRound(graph, groupsRoundLink(), g),
    // With a scope, the users wait for the groups that say who is in it.
    (g) => (assigned ? Promise.resolve() : streamUsers(graph, sink, { plan, ...users }, g)),
  ]);
  const out = leftOut((member, type, group) =>
    sink.skip?.('groups', `${type} ${member} in ${group}`, LEFT_OUT_REASON),
  );
  const edges = roundEdges(round.groups, out);
  let scope: InScope | undefined;
  if (assigned) {
    scope = await inScope(edges, assigned);
    await streamUsers(graph, sink, { plan, ...users, only: scope.users }, gate);
  }
  await markSoftDeleted(edges, users.listed);
  await sendGroups(sink, round, edges, { live: users.live, ...(scope ? { only: scope.groups } : {}) });
  await options.groupEdges?.replace(edges);
  if (out.byType.size > 0)
    logger?.info(
      { leftOut: Object.fromEntries(out.byType), count: leftOutCount(out) },
      'group members that are neither users nor groups left out',
    );
}

async function streamUsers(
  graph: GraphSession,
  sink: SnapshotSink,
  read: { plan: ReadPlan; live: Set<string>; listed: Set<string>; only?: ReadonlySet<string> },
  gate: RequestGate,
): Promise<void> {
  const { plan, live, listed, only } = read;
  const first = query('users', { $select: plan.userSelect.join(','), $top: String(plan.pageSize) });
  for await (const page of graph.pages(first, 'User.Read.All', gate)) {
    const users = (page.items as GraphObject[]).filter((raw) => {
      const id = idOf(raw);
      if (id !== undefined) listed.add(id);
      return id !== undefined && (only === undefined || only.has(id));
    });
    for (const raw of users) live.add(raw.id as string);
    await sink.add(
      'users',
      users.map((raw) => userItem(raw)),
      users.map((raw) => ({ label: labelOf(raw) })),
    );
  }
}

/** Every group of the round (in scope), its members flattened to the users the read listed. */
async function sendGroups(
  sink: SnapshotSink,
  round: GroupRound,
  edges: MemoryGroupEdges,
  keep: { live: ReadonlySet<string>; only?: ReadonlySet<string> },
): Promise<void> {
  const ids = [...round.groups]
    .filter(
      ([id, group]) =>
        group.props !== undefined && group.removed === undefined && keep.only?.has(id) !== false,
    )
    .map(([id]) => id);
  for (let i = 0; i < ids.length; i += SOURCE_BATCH) {
    const batch = ids.slice(i, i + SOURCE_BATCH);
    const flat = await flattenGroups(edges, batch);
    const props = batch.map((id) => round.groups.get(id)?.props as GraphObject);
    const items = batch.map((id, n) =>
      groupItem(
        props[n] as GraphObject,
        (flat.get(id) ?? []).filter((user) => keep.live.has(user)),
      ),
    );
    await sink.add(
      'groups',
      items,
      props.map((raw) => ({ label: labelOf(raw) })),
    );
  }
}

/**
 * Runs reads side by side; the first to fail stops the others (their requests aborted) and its
 * error is thrown once all have ended, so that nothing still writes to the sink after a failure.
 */
export async function together<T extends unknown[]>(
  gate: RequestGate,
  tasks: { [K in keyof T]: (gate: RequestGate) => Promise<T[K]> },
): Promise<T> {
  const controller = new AbortController();
  const signal = gate.signal ? AbortSignal.any([gate.signal, controller.signal]) : controller.signal;
  let first: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    tasks.map((task) =>
      task({ signal }).catch((error: unknown) => {
        first ??= { error };
        controller.abort(error);
        throw error;
      }),
    ),
  );
  if (first) throw first.error;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as T;
}

import { isBridgeError } from '../../../domain/errors.js';
import type { DeltaChanges, DeltaSource } from '../../../domain/input.js';
import type { ReadOptions } from '../../../domain/snapshot-sink.js';
import { deltaChanges } from './entra-delta-changes.js';
import { groupsRoundLink, together } from './entra-full-read.js';
import { query } from './entra-items.js';
import { readGroupRound, readUserRound } from './entra-rounds.js';
import { readAssigned } from './entra-scope.js';
import { positionOf, toWatermark, untrusted, WATERMARK_KIND, type DeltaPosition } from './entra-watermark.js';
import { graphCode } from './graph-answers.js';
import type { GraphSession, RequestGate } from './graph-session.js';

/**
 * The `entra` source's change read (domain/input.ts DeltaSource; SPEC §5.4, §5.5): the users and
 * groups rounds of Graph's delta query from the watermark's links, side by side, merged into one
 * net change per object (entra-rounds.ts) and turned into upserts and removals with the kept group
 * graph (entra-delta-changes.ts). Its position is `$deltatoken=latest` of both (user-delta.md:
 * "a delta link and no data"), taken before a full read begins, so that a change made while the
 * full read runs is read again — harmless, every change is applied as the state it leaves.
 *
 * A delta link Graph refuses — `syncStateNotFound` (expired), `resyncRequired`, `410 Gone` (a
 * resync with a Location), or any other 400/404 on a round — and a link older than 6 days, a
 * watermark of other settings, a changed set of assignments or no kept graph: `watermark_untrusted`,
 * and the bridge reads the input in full by itself.
 */

export interface DeltaPlan {
  userSelect: readonly string[];
  groupSelect: readonly string[];
  assignedTo: string;
  origin: string;
  concurrency: number;
}

/** Graph's words for a delta link that cannot be followed (delta-query-overview.md, errors). */
const REFUSED_LINK = new Set(['syncStateNotFound', 'resyncRequired', 'syncStateInvalid']);

export function entraDelta(open: () => GraphSession, plan: DeltaPlan, now = Date.now): DeltaSource {
  return {
    watermarkKind: WATERMARK_KIND,
    position: async (options) => {
      const graph = open();
      try {
        return toWatermark(await latest(graph, plan, gateOf(options), now), plan.origin);
      } finally {
        await graph.close();
      }
    },
    changesSince: async (watermark, options) => {
      const mark = positionOf(watermark, plan.origin, now());
      const edges = options?.groupEdges;
      if (!edges || !(await edges.exists()))
        throw untrusted('the bridge keeps no group graph of a full read');
      const graph = open();
      try {
        return await readChanges(graph, plan, mark, { ...gateOf(options), edges }, now);
      } finally {
        await graph.close();
      }
    },
  };
}

async function latest(
  graph: GraphSession,
  plan: DeltaPlan,
  gate: RequestGate,
  now: () => number,
): Promise<DeltaPosition> {
  const at = now();
  const users = query('users/delta', { $select: plan.userSelect.join(','), $deltatoken: 'latest' });
  const groups = `${groupsRoundLink()}&$deltatoken=latest`;
  const [u, g] = await together(gate, [
    (gt) => readUserRound(graph, users, gt),
    (gt) => readGroupRound(graph, groups, gt),
  ]);
  const assigned = plan.assignedTo === '' ? undefined : await readAssigned(graph, plan.assignedTo, gate);
  return { users: u.deltaLink, groups: g.deltaLink, at, ...(assigned ? { assigned: assigned.digest } : {}) };
}

async function readChanges(
  graph: GraphSession,
  plan: DeltaPlan,
  mark: DeltaPosition,
  context: RequestGate & { edges: NonNullable<ReadOptions['groupEdges']> },
  now: () => number,
): Promise<DeltaChanges> {
  const { edges, ...gate } = context;
  const at = now();
  const assigned = plan.assignedTo === '' ? undefined : await readAssigned(graph, plan.assignedTo, gate);
  if (assigned && assigned.digest !== mark.assigned)
    throw untrusted("the enterprise application's assignments changed");
  const [users, groups] = await together(gate, [
    (gt) => followed(readUserRound(graph, mark.users, gt)),
    (gt) => followed(readGroupRound(graph, mark.groups, gt)),
  ]);
  const found = await deltaChanges(
    {
      graph,
      edges,
      userSelect: plan.userSelect,
      concurrency: plan.concurrency,
      gate,
      ...(assigned ? { assigned } : {}),
    },
    users,
    groups,
  );
  const position = {
    users: users.deltaLink,
    groups: groups.deltaLink,
    at,
    ...(assigned ? { assigned: assigned.digest } : {}),
  };
  return {
    changes: found.changes,
    watermark: toWatermark(position, plan.origin),
    entriesRead: users.entries + groups.entries,
    ...(found.skipped.length > 0 ? { skipped: found.skipped } : {}),
  };
}

/** A round from a stored link; a link Graph will not follow any more is an untrusted watermark. */
async function followed<T>(round: Promise<T>): Promise<T> {
  try {
    return await round;
  } catch (error) {
    const refused =
      isBridgeError(error) &&
      error.code !== 'source_unauthorized' &&
      (REFUSED_LINK.has(graphCode(error) ?? '') || [400, 404, 410].includes(error.status ?? 0));
    if (!refused) throw error;
    throw untrusted(`Microsoft Graph refused it (${error.status ?? ''} ${graphCode(error) ?? ''})`.trim());
  }
}

function gateOf(options: ReadOptions | undefined): RequestGate {
  return options?.signal ? { signal: options.signal } : {};
}

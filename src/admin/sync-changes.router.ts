import { Router } from 'express';
import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import { isSyncId } from '../queue/job-ids.js';
import type { IdentityNameQueries } from '../store/identity-names.queries.js';
import type { SyncService } from '../sync/sync.service.js';
import { parseInput } from './admin-input.js';
import { SyncChangesQuery, type SyncChange, type SyncChanges } from './schemas/sync-changes.schema.js';
import { LIST_ACTIONS, type ListAction } from './schemas/plan-inputs.schema.js';
import { CHANGE_ACTIONS, type ChangeAction } from './schemas/sync-plan.schema.js';
import { listItems, listTotals, type RecordedLists } from './sync-lists.js';

export interface AdminSyncChangesDeps {
  syncs: SyncService;
  names: IdentityNameQueries;
}

const ACTIONS = CHANGE_ACTIONS;
type Action = ChangeAction;

/** A change as the sync's record keeps it (sync/sync-report.ts); names when the plan recorded them. */
interface RecordedChange {
  kind: IdentityKind;
  id: string;
  action: Action;
  targetId?: string;
  attributes?: string[];
  userName?: string;
  displayName?: string;
}

/** The parts of the recorded plan read here; anything else in it is left alone. */
interface RecordedPlan extends RecordedLists {
  create?: number;
  update?: number;
  deprovision?: number;
  changes?: RecordedChange[];
  changesOmitted?: number;
  removals?: {
    users?: { sample?: { id: string | null; userName: string | null }[] };
    groups?: { sample?: { id: string | null; displayName: string | null }[] };
  };
}

/**
 * GET /admin/sync/{jobId}/changes: a page of a sync's planned changes, of one action or all, each
 * with its userName (users) or displayName (groups) beside its id — or of one of the lists the plan
 * keeps beside them (sync-lists.ts: what it leaves to other inputs, a link-only run's lists). The
 * record keeps a sample of each (the first 100); `total` counts them all, `recorded` those the
 * sample holds.
 */
export function adminSyncChangesRouter(deps: AdminSyncChangesDeps): Router {
  const router = Router();
  router.param('jobId', (_req, _res, next, jobId: string) => {
    if (isSyncId(jobId)) return next();
    next(new BridgeError('not_found', `No sync ${JSON.stringify(jobId.slice(0, 100))} (ids read sync-…)`));
  });
  router.get('/sync/:jobId/changes', async (req, res) => {
    const { action, offset, limit } = parseInput(SyncChangesQuery, req.query, 'query');
    const record = await deps.syncs.get(req.params.jobId);
    if (!record) throw new BridgeError('not_found', `No sync ${req.params.jobId}`);
    const plan = (record.plan ?? {}) as RecordedPlan;
    const changes = Array.isArray(plan.changes) ? plan.changes : [];
    const totals = { ...actionTotals(plan, changes), ...listTotals(plan) };
    const head = { jobId: record.jobId, action: action ?? null, planned: record.plan !== undefined };
    if (isList(action)) {
      const items = listItems(plan, action);
      const page = { total: totals[action], recorded: items.length, totals, offset, limit };
      const answer: SyncChanges = { ...head, ...page, items: items.slice(offset, offset + limit) };
      return void res.json(answer);
    }
    const matching = action ? changes.filter((c) => c.action === action) : changes;
    const page = matching.slice(offset, offset + limit);
    const answer: SyncChanges = {
      ...head,
      total: action ? totals[action] : changes.length + (plan.changesOmitted ?? 0),
      recorded: matching.length,
      totals,
      offset,
      limit,
      items: await named(deps.names, plan, page),
    };
    res.json(answer);
  });
  return router;
}

function isList(action: string | undefined): action is ListAction {
  return (LIST_ACTIONS as readonly string[]).includes(action ?? '');
}

/**
 * Changes per action in the whole plan. Creates, updates and deprovisions are counted by the plan;
 * adoptions are what remains of its changes (the plan counts an adopted identity as unchanged).
 */
function actionTotals(plan: RecordedPlan, changes: readonly RecordedChange[]): Record<Action, number> {
  const recorded = (a: Action) => changes.filter((c) => c.action === a).length;
  if (!plan.changesOmitted) {
    return Object.fromEntries(ACTIONS.map((a) => [a, recorded(a)])) as Record<Action, number>;
  }
  const counted = (a: 'create' | 'update' | 'deprovision') => plan[a] ?? recorded(a);
  const all = changes.length + plan.changesOmitted;
  const create = counted('create');
  const update = counted('update');
  const deprovision = counted('deprovision');
  return {
    create,
    update,
    deprovision,
    adopt: Math.max(recorded('adopt'), all - create - update - deprovision),
  };
}

/**
 * Each change with its name: the one the plan recorded, else the removals' (the platform's name of
 * what a sync deprovisions), else the desired state's; null when none knows it.
 */
async function named(
  names: IdentityNameQueries,
  plan: RecordedPlan,
  page: readonly RecordedChange[],
): Promise<SyncChange[]> {
  const removed = new Map<string, string>();
  for (const u of plan.removals?.users?.sample ?? [])
    if (u.id && u.userName) removed.set(`user:${u.id}`, u.userName);
  for (const g of plan.removals?.groups?.sample ?? [])
    if (g.id && g.displayName) removed.set(`group:${g.id}`, g.displayName);
  const idsOf = (kind: IdentityKind) => page.filter((c) => c.kind === kind).map((c) => c.id);
  const [users, groups] = await Promise.all([
    names.names('user', idsOf('user')),
    names.names('group', idsOf('group')),
  ]);
  return page.map((c) => {
    const own = c.kind === 'user' ? c.userName : c.displayName;
    const stored = (c.kind === 'user' ? users : groups).get(c.id);
    const name = own ?? removed.get(`${c.kind}:${c.id}`) ?? stored ?? null;
    return {
      kind: c.kind,
      id: c.id,
      action: c.action,
      ...(c.targetId ? { targetId: c.targetId } : {}),
      ...(c.attributes ? { attributes: c.attributes } : {}),
      ...(c.kind === 'user' ? { userName: name } : { displayName: name }),
    };
  });
}

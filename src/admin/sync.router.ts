import { Router, type Request } from 'express';
import { BridgeError } from '../domain/errors.js';
import { feedSnapshot } from '../domain/snapshot.js';
import { compilePolicy } from '../domain/identity-policy.js';
import type { planReport, summarise } from '../sync/sync-report.js';
import type { SyncService } from '../sync/sync.service.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import { jsonBody, utf8Only } from '../http/body.js';
import { isSyncId } from '../queue/job-ids.js';
import { optionalBody, parseInput } from './admin-input.js';
import type { SyncPlan, SyncSummary } from './schemas/sync-plan.schema.js';
import { NDJSON_TYPES, SyncListQuery, SyncStartBody, type SyncView } from './schemas/sync.schema.js';
import { isNdjsonRequest, readNdjsonSnapshot } from './sync-ndjson.js';

export interface AdminSyncDeps {
  syncs: SyncService;
  /** Largest JSON body (SNAPSHOT_LIMIT_BYTES), parsed whole. */
  snapshotLimitBytes: number;
  /** Largest NDJSON body (SNAPSHOT_STREAM_LIMIT_BYTES), read as a stream. */
  snapshotStreamLimitBytes: number;
}

/**
 * The plan and summary a sync's record keeps are what sync/sync-report.ts built: their types must
 * fit the schemas, so a report that drifts from them fails the type check here (`approved`, typed
 * boolean there, is only ever written true).
 */
type Fits<T extends U, U> = T;
type _RecordedReports = [
  Fits<Omit<ReturnType<typeof planReport>, 'approved'>, SyncPlan>,
  Fits<ReturnType<typeof summarise>, SyncSummary>,
];

/**
 * The public view of a sync (SPEC §6): the plan and summary as the record keeps them (above), the
 * trigger as the service took it (StartRequest['trigger']).
 */
export function syncView(record: SyncRecord): SyncView {
  return {
    jobId: record.jobId,
    state: record.state,
    dryRun: record.dryRun,
    trigger: record.trigger as SyncView['trigger'],
    ...(record.owner ? { input: record.owner } : {}),
    createdAt: record.createdAt,
    ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    progress: record.progress,
    ...(record.plan ? { plan: record.plan as SyncView['plan'] } : {}),
    ...(record.summary ? { summary: record.summary as SyncView['summary'] } : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(record.cancelRequested && record.state === 'running' ? { cancelRequested: true } : {}),
    ...(record.allowEmpty ? { allowEmpty: true } : {}),
    ...(record.linkOnly ? { linkOnly: true } : {}),
    ...(record.candidate !== undefined ? { candidate: true } : {}),
    ...(record.policy ? { policyFingerprint: record.policy.fingerprint } : {}),
    ...(record.preview ? { preview: previewSummary(record.preview) } : {}),
    ...(record.skipped ? { skipped: record.skipped as SyncView['skipped'] } : {}),
    ...(record.sourceUnchanged ? { sourceUnchanged: true as const } : {}),
  };
}

function previewSummary(preview: Record<string, unknown>): SyncView['preview'] {
  const { before, after, counts, renames } = preview;
  return { before, after, counts, renames } as SyncView['preview'];
}

/**
 * POST/GET /admin/sync, GET /admin/sync/{jobId}, approve and cancel (SPEC §4, §6). A snapshot comes
 * in a JSON body (`{"snapshot": {...}}`, up to SNAPSHOT_LIMIT_BYTES) or as NDJSON read as a stream
 * (sync-ndjson.ts, up to SNAPSHOT_STREAM_LIMIT_BYTES); either is staged as it is checked.
 */
export function adminSyncRouter(deps: AdminSyncDeps): Router {
  const router = Router();
  router.post(
    '/sync',
    utf8Only,
    async (req, res, next) => {
      if (!isNdjsonRequest(req)) return next();
      try {
        const { jobId } = await deps.syncs.startWithSnapshot('admin', (sink) =>
          readNdjsonSnapshot(req, sink, deps.snapshotStreamLimitBytes),
        );
        res.status(202).json({ jobId, started: true });
      } catch (error) {
        // The rest of a refused body is not read: the connection closes after the answer.
        res.setHeader('Connection', 'close');
        throw error;
      }
    },
    ...jsonBody(deps.snapshotLimitBytes, undefined, NDJSON_TYPES),
    async (req, res) => {
      const body = parseStart(req);
      const options = startOptions(body);
      if (body.snapshot === undefined) {
        const result = await deps.syncs.start({ ...options, trigger: 'admin' });
        res.status(202).json({ jobId: result.jobId, started: result.started });
        return;
      }
      const { snapshot } = body;
      const { jobId } = await deps.syncs.startWithSnapshot('admin', async (sink) => {
        await feedSnapshot(snapshot, sink);
        return options;
      });
      res.status(202).json({ jobId, started: true });
    },
  );
  router.get('/sync', async (req, res) => {
    const { limit } = parseInput(SyncListQuery, req.query, 'query');
    res.json({ syncs: (await deps.syncs.list(limit)).map(syncView) });
  });
  // Checked before any Redis read: a word such as `runs` names another key of the sync family.
  router.param('jobId', (_req, _res, next, jobId: string) => {
    if (isSyncId(jobId)) return next();
    next(new BridgeError('not_found', `No sync ${JSON.stringify(jobId.slice(0, 100))} (ids read sync-…)`));
  });
  router.get('/sync/:jobId', async (req, res) => {
    const record = await deps.syncs.get(req.params.jobId);
    if (!record) throw new BridgeError('not_found', `No sync ${req.params.jobId}`);
    res.json(syncView(record));
  });
  router.post('/sync/:jobId/approve', async (req, res) => {
    res.status(202).json(syncView(await deps.syncs.approve(req.params.jobId)));
  });
  router.post('/sync/:jobId/cancel', async (req, res) => {
    res.status(202).json(syncView(await deps.syncs.cancel(req.params.jobId)));
  });
  return router;
}

function startOptions(body: SyncStartBody) {
  const { dryRun = false, allowEmpty = false, linkOnly = false, input, candidate } = body;
  if (candidate !== undefined) checkCandidate(candidate, dryRun, body.snapshot !== undefined);
  return {
    dryRun,
    allowEmpty,
    linkOnly,
    ...(input === undefined ? {} : { input }),
    ...(candidate === undefined ? {} : { candidate }),
  };
}

/** A candidate is previewed only (a dry run of an input's source), and must compile. */
function checkCandidate(candidate: unknown, dryRun: boolean, snapshot: boolean): void {
  if (!dryRun || snapshot) {
    throw new BridgeError('invalid_input', 'candidate: previewed only, with dryRun: true and no snapshot', {
      problems: ['candidate: only with dryRun: true and without a snapshot'],
    });
  }
  // null is not an empty candidate: a preview of nothing would show the configuration in force.
  const { problems } =
    candidate === null
      ? { problems: ['candidate: expected an object, received null'] }
      : compilePolicy(candidate, 'candidate');
  if (problems.length > 0) {
    throw new BridgeError('invalid_input', 'The candidate scope and mapping do not compile', { problems });
  }
}

function parseStart(req: Request): SyncStartBody {
  const parsed = SyncStartBody.safeParse(optionalBody(req.body));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
  throw new BridgeError('invalid_input', 'The request body is invalid', { problems });
}

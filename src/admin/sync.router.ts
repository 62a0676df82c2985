import { Router, type Request } from 'express';
import { z } from 'zod';
import { BridgeError } from '../domain/errors.js';
import { feedSnapshot } from '../domain/snapshot.js';
import type { SyncService } from '../sync/sync.service.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import { jsonBody, utf8Only } from '../http/body.js';
import { isSyncId } from '../queue/job-ids.js';
import { parseInput } from './admin-input.js';
import { isNdjsonRequest, readNdjsonSnapshot } from './sync-ndjson.js';

export interface AdminSyncDeps {
  syncs: SyncService;
  /** Largest JSON body (SNAPSHOT_LIMIT_BYTES), parsed whole. */
  snapshotLimitBytes: number;
  /** Largest NDJSON body (SNAPSHOT_STREAM_LIMIT_BYTES), read as a stream. */
  snapshotStreamLimitBytes: number;
}

const listQuery = z.strictObject({
  limit: z.coerce.number().int('not a whole number').min(1).max(100).default(20),
});

const startBody = z.strictObject({
  /** The input to read in full, by its owner name (`okta`, `directory:<name>`); default the directory. */
  input: z.string().min(1).max(200).optional(),
  dryRun: z.boolean().optional(),
  snapshot: z.unknown().optional(),
  allowEmpty: z.boolean().optional(),
  linkOnly: z.boolean().optional(),
});

/** The public view of a sync (SPEC §6). */
export function syncView(record: SyncRecord) {
  return {
    jobId: record.jobId,
    state: record.state,
    dryRun: record.dryRun,
    trigger: record.trigger,
    createdAt: record.createdAt,
    ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    progress: record.progress,
    ...(record.plan ? { plan: record.plan } : {}),
    ...(record.summary ? { summary: record.summary } : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(record.cancelRequested && record.state === 'running' ? { cancelRequested: true } : {}),
    ...(record.allowEmpty ? { allowEmpty: true } : {}),
    ...(record.linkOnly ? { linkOnly: true } : {}),
  };
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
    ...jsonBody(deps.snapshotLimitBytes),
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
    const { limit } = parseInput(listQuery, req.query, 'query');
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

function startOptions(body: z.infer<typeof startBody>) {
  const { dryRun = false, allowEmpty = false, linkOnly = false, input } = body;
  return { dryRun, allowEmpty, linkOnly, ...(input === undefined ? {} : { input }) };
}

function parseStart(req: Request): z.infer<typeof startBody> {
  const parsed = startBody.safeParse(req.body ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
  throw new BridgeError('invalid_input', 'The request body is invalid', { problems });
}

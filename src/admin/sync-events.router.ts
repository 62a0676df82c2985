import type { Server } from 'node:http';
import { Router, type Request, type Response } from 'express';
import { BridgeError } from '../domain/errors.js';
import { isSyncId } from '../queue/job-ids.js';
import type { SyncService } from '../sync/sync.service.js';
import type { SyncRecord } from '../store/sync-record.store.js';
import { publicMessage, toBridgeError } from '../http/error-responses.js';
import type { SyncProgressEvent } from './schemas/sync.schema.js';

export interface AdminSyncEventsDeps {
  syncs: SyncService;
  /** How often the sync's record is read while the stream is open (ms). */
  pollMs?: number;
  /** The longest a stream stays open (ms); the dashboard opens another while the sync still runs. */
  maxStreamMs?: number;
}

/** Read every 200 ms: the dashboard shows a change within a fifth of a second (at least 2 Hz). */
const POLL_MS = 200;
const MAX_STREAM_MS = 10 * 60_000;
/** A comment line now and then, so that a proxy does not close a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** A held sync waits for a person: the stream ends, as for a sync that ended. */
const SETTLED = new Set(['completed', 'failed', 'awaiting-approval']);

/** What a progress event carries: the sync's state and progress, nothing of its plan. */
export function progressEvent(record: SyncRecord): SyncProgressEvent {
  return {
    jobId: record.jobId,
    state: record.state,
    progress: record.progress,
    ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
    ...(record.cancelRequested && record.state === 'running' ? { cancelRequested: true } : {}),
  };
}

/**
 * GET /admin/sync/{jobId}/events: the sync's progress as server-sent events (text/event-stream),
 * behind the admin token like every admin route. The dashboard reads it with fetch, which sends the
 * Authorization header (EventSource cannot). One `progress` event now, then one whenever the state
 * or progress changes; `end` once the sync completed, failed or waits for approval, and the stream
 * closes. A stream is one request (one log line), where polling at the same rate would be five.
 */
export function adminSyncEventsRouter(deps: AdminSyncEventsDeps): Router {
  const router = Router();
  router.param('jobId', (_req, _res, next, jobId: string) => {
    if (isSyncId(jobId)) return next();
    next(new BridgeError('not_found', `No sync ${JSON.stringify(jobId.slice(0, 100))} (ids read sync-…)`));
  });
  router.get('/sync/:jobId/events', async (req, res) => {
    const jobId = req.params.jobId;
    const first = await deps.syncs.get(jobId);
    if (!first) throw new BridgeError('not_found', `No sync ${jobId}`);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // nginx and others buffer responses unless told not to: events must arrive as they happen.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    await stream(deps, req, res, first);
  });
  return router;
}

async function stream(deps: AdminSyncEventsDeps, req: Request, res: Response, first: SyncRecord) {
  const pollMs = deps.pollMs ?? POLL_MS;
  const until = Date.now() + (deps.maxStreamMs ?? MAX_STREAM_MS);
  let closed = false;
  // The response's close: the client went away (or the stream ended); req's says only that the request was read.
  res.on('close', () => (closed = true));
  let last = '';
  let quietSince = Date.now();
  let record: SyncRecord | undefined = first;
  while (!closed && record && Date.now() < until && listening(req)) {
    const data = JSON.stringify(progressEvent(record));
    if (SETTLED.has(record.state)) return void res.end(event('end', data));
    if (data !== last) {
      res.write(event('progress', data));
      last = data;
      quietSince = Date.now();
    } else if (Date.now() - quietSince > KEEP_ALIVE_MS) {
      res.write(': keep-alive\n\n');
      quietSince = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    try {
      record = await deps.syncs.get(first.jobId);
    } catch (error) {
      const failure = toBridgeError(error);
      const message = publicMessage(failure);
      return void res.end(event('error', JSON.stringify({ code: failure.code, message })));
    }
  }
  res.end();
}

function event(name: string, data: string): string {
  return `event: ${name}\ndata: ${data}\n\n`;
}

/**
 * False once the HTTP server is closing: an open stream ends at once rather than holding a graceful
 * shutdown for its whole grace period (net.Server sets `socket.server` on the sockets it accepts).
 */
function listening(req: Request): boolean {
  const server = (req.socket as { server?: Server }).server;
  return server?.listening ?? true;
}

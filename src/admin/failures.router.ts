import { Router } from 'express';
import type { IdentityKey } from '../domain/identity.js';
import { parseKey } from '../domain/identity.js';
import type { FailureQueries } from '../store/failures.queries.js';
import { jsonBody } from '../http/body.js';
import { optionalBody, parseInput } from './admin-input.js';
import {
  FailureListQuery,
  FailureRetryBody,
  type FailureList,
  type FailureRetry,
} from './schemas/failures.schema.js';
import { failureView } from './views.js';

export interface AdminFailuresDeps {
  failures: FailureQueries;
  /** Enqueues reconcile runs; a run that succeeds removes its identity from the failures. */
  enqueue: (keys: readonly IdentityKey[]) => Promise<void>;
  bodyLimitBytes: number;
}

/**
 * GET /admin/failures: identities the target rejected for good (400/422), newest first, paged with
 * a cursor and filtered by kind and error code. POST /admin/failures/retry: enqueue all of them (or
 * all of a kind / error code), or the listed keys, again.
 */
export function adminFailuresRouter(deps: AdminFailuresDeps): Router {
  const router = Router();
  router.get('/failures', async (req, res) => {
    const query = parseInput(FailureListQuery, req.query, 'query');
    const page = await deps.failures.page({ kind: query.kind, code: query.code }, query.cursor, query.limit);
    const list: FailureList = {
      total: page.total,
      items: page.items.map(failureView),
      nextCursor: page.next === undefined ? null : String(page.next),
    };
    res.json(list);
  });
  router.post('/failures/retry', ...jsonBody(deps.bodyLimitBytes), async (req, res) => {
    const body = parseInput(FailureRetryBody, optionalBody(req.body), 'body');
    const keys =
      'all' in body ? await deps.failures.allKeys({ kind: body.kind, code: body.code }) : unique(body.keys);
    for (let i = 0; i < keys.length; i += 1000) await deps.enqueue(keys.slice(i, i + 1000));
    const answer: FailureRetry = { retried: keys.length };
    res.status(202).json(answer);
  });
  return router;
}

function unique(texts: readonly string[]): IdentityKey[] {
  return [...new Set(texts)].map((text) => parseKey(text)).filter((k): k is IdentityKey => k !== undefined);
}

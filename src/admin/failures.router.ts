import { Router } from 'express';
import { z } from 'zod';
import type { IdentityKey } from '../domain/identity.js';
import { parseKey } from '../domain/identity.js';
import { identityIdProblem } from '../domain/platform-rules.js';
import type { FailureQueries } from '../store/failures.queries.js';
import { jsonBody } from '../http/body.js';
import { parseInput } from './admin-input.js';
import { failureView } from './views.js';

export interface AdminFailuresDeps {
  failures: FailureQueries;
  /** Enqueues reconcile runs; a run that succeeds removes its identity from the failures. */
  enqueue: (keys: readonly IdentityKey[]) => Promise<void>;
  bodyLimitBytes: number;
}

const kind = z.enum(['user', 'group'], { error: 'not user or group' });
const code = z.string().regex(/^[a-z][a-z_]{0,63}$/, 'not an error code');
const listQuery = z.strictObject({
  kind: kind.optional(),
  code: code.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.coerce.number().int().min(0).default(0),
});

const MAX_KEYS = 10_000;
/** An identity key whose id the store could hold (checked before anything reads Redis). */
const identityKey = z.string().refine((text) => {
  const key = parseKey(text);
  return key !== undefined && identityIdProblem(key.id) === undefined;
}, 'not user:<id> or group:<id> (an id is non-empty, without control characters)');
const retryBody = z.union([
  z.strictObject({ all: z.literal(true), kind: kind.optional(), code: code.optional() }),
  z.strictObject({ keys: z.array(identityKey).min(1).max(MAX_KEYS) }),
]);

/**
 * GET /admin/failures: identities the target rejected for good (400/422), newest first, paged with
 * a cursor and filtered by kind and error code. POST /admin/failures/retry: enqueue all of them (or
 * all of a kind / error code), or the listed keys, again.
 */
export function adminFailuresRouter(deps: AdminFailuresDeps): Router {
  const router = Router();
  router.get('/failures', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'query');
    const page = await deps.failures.page({ kind: query.kind, code: query.code }, query.cursor, query.limit);
    res.json({
      total: page.total,
      items: page.items.map(failureView),
      nextCursor: page.next === undefined ? null : String(page.next),
    });
  });
  router.post('/failures/retry', ...jsonBody(deps.bodyLimitBytes), async (req, res) => {
    const body = parseInput(retryBody, req.body ?? {}, 'body');
    const keys =
      'all' in body ? await deps.failures.allKeys({ kind: body.kind, code: body.code }) : unique(body.keys);
    for (let i = 0; i < keys.length; i += 1000) await deps.enqueue(keys.slice(i, i + 1000));
    res.status(202).json({ retried: keys.length });
  });
  return router;
}

function unique(texts: readonly string[]): IdentityKey[] {
  return [...new Set(texts)].map((text) => parseKey(text)).filter((k): k is IdentityKey => k !== undefined);
}

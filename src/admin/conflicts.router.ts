import { Router } from 'express';
import { BridgeError } from '../domain/errors.js';
import { jsonBody } from '../http/body.js';
import { CONFLICT_ID, type ConflictStore } from '../store/conflicts.store.js';
import { optionalBody, parseInput } from './admin-input.js';
import { conflictView } from './conflict-views.js';
import { ConflictListQuery, ConflictResolveBody, type ConflictList } from './schemas/conflicts.schema.js';

export interface AdminConflictsDeps {
  conflicts: ConflictStore;
  bodyLimitBytes: number;
}

/**
 * The conflict inbox (SPEC §6, Ownership): identities two inputs claim.
 * GET /admin/conflicts: `{"total", "items", "nextCursor"}`, open ones by default (`?status=ignored`
 * or `all`), most recently seen first, paged with `limit` (1 to 200) and `cursor`.
 * POST /admin/conflicts/{id}/resolve `{"action": "link" | "ignore", "targetId"?}`: link — the
 * claimant's input becomes the owner of the platform account (an ambiguous conflict names the
 * candidate in targetId); ignore — the claimant stays parked and is no longer reported. 404 for an
 * unknown id (checked before Redis), 409 for one already resolved.
 */
export function adminConflictsRouter(deps: AdminConflictsDeps): Router {
  const router = Router();
  router.get('/conflicts', async (req, res) => {
    const query = parseInput(ConflictListQuery, req.query, 'query');
    const page = await deps.conflicts.page(query.status, query.cursor, query.limit);
    const list: ConflictList = {
      total: page.total,
      items: page.items.map(conflictView),
      nextCursor: page.next === undefined ? null : String(page.next),
    };
    res.json(list);
  });
  router.post('/conflicts/:id/resolve', ...jsonBody(deps.bodyLimitBytes), async (req, res) => {
    const id = String(req.params.id);
    if (!CONFLICT_ID.test(id)) throw new BridgeError('not_found', `No conflict ${JSON.stringify(id)}`);
    const body = parseInput(ConflictResolveBody, optionalBody(req.body), 'body');
    if (body.action === 'ignore' && body.targetId !== undefined) {
      throw new BridgeError('invalid_input', 'The body is invalid', {
        problems: ['targetId: only a link names a platform account'],
      });
    }
    const resolved = await deps.conflicts.resolve(id, body.action, body.targetId);
    res.json(conflictView(resolved));
  });
  return router;
}

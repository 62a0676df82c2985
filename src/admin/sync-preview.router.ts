import { Router } from 'express';
import { BridgeError } from '../domain/errors.js';
import { isSyncId } from '../queue/job-ids.js';
import type { SyncService } from '../sync/sync.service.js';
import { parseInput } from './admin-input.js';
import { SyncPreviewQuery, type SyncPreviewPage } from './schemas/sync-preview.schema.js';

type Category = SyncPreviewPage['category'];

/** What the sync's record keeps of a preview (sync/policy-preview.ts). */
interface RecordedPreview {
  counts?: Partial<Record<Category, { users: number; groups: number }>>;
  lists?: Partial<Record<Category, SyncPreviewPage['items']>>;
}

/**
 * GET /admin/sync/{jobId}/preview: a page of the identities a preview (or a changed configuration)
 * puts in one category — entering or leaving the scope, changed (before → after, per attribute),
 * unmappable (with why), collisions — by name. The record keeps the first 500 of each.
 */
export function adminSyncPreviewRouter(deps: { syncs: SyncService }): Router {
  const router = Router();
  router.get('/sync/:jobId/preview', async (req, res) => {
    const { jobId } = req.params;
    if (!isSyncId(jobId))
      throw new BridgeError('not_found', `No sync ${JSON.stringify(jobId.slice(0, 100))}`);
    const { category, offset, limit } = parseInput(SyncPreviewQuery, req.query, 'query');
    const record = await deps.syncs.get(jobId);
    if (!record) throw new BridgeError('not_found', `No sync ${jobId}`);
    // A preview not yet computed is an empty page; a sync that is no preview has none to page.
    if (record.preview === undefined && record.candidate === undefined) {
      throw new BridgeError(
        'not_found',
        `Sync ${jobId} recorded no preview: only a dry run with a candidate, or a sync whose scope and mapping changed, records one`,
      );
    }
    const preview = (record.preview ?? {}) as RecordedPreview;
    const counted = preview.counts?.[category];
    const items = preview.lists?.[category] ?? [];
    const page: SyncPreviewPage = {
      jobId,
      category,
      total: counted ? counted.users + counted.groups : 0,
      recorded: items.length,
      offset,
      limit,
      items: items.slice(offset, offset + limit),
    };
    res.json(page);
  });
  return router;
}

import type { Logger } from '../ops/logger.js';
import type { SyncService } from './sync.service.js';

/** How long a round's next sync waits before it tries the slot again. */
const NEXT_DELAY_MS = 10_000;

/**
 * SYNC_SCHEDULE's round (SPEC §3): a full sync of every input that can be read in full — the
 * directory first, then the others (okta when configured) — one after another, since one sync
 * runs at a time; without any, the desired state as it is. A firing while a sync runs, waits for
 * approval, or a round is still under way is skipped; the round's next sync waits for the slot.
 */
export async function scheduledRound(
  deps: { service: SyncService; logger: Logger },
  remaining: readonly string[] | undefined,
): Promise<void> {
  const { service, logger } = deps;
  const firing = remaining === undefined;
  if (firing && (await service.roundUnderWay())) {
    logger.info('scheduled full sync skipped: the previous round is still under way');
    return;
  }
  const inputs = remaining ?? service.inputsToSchedule();
  const [input, ...rest] = inputs;
  const { jobId, started } = await service.start({
    dryRun: false,
    trigger: 'schedule',
    ...(input === undefined ? {} : { input }),
  });
  if (!started && firing) {
    logger.info({ syncId: jobId }, 'scheduled full sync skipped: one is running');
    return;
  }
  if (started) logger.info({ syncId: jobId, input }, 'scheduled full sync queued');
  const next = started ? rest : inputs;
  if (next.length > 0) await service.scheduleNext(next, NEXT_DELAY_MS);
}

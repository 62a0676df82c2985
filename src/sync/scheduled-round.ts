import type { Logger } from '../ops/logger.js';
import type { SyncService } from './sync.service.js';

/**
 * SYNC_SCHEDULE's firing (SPEC §3, §6): a full sync of every input that can be read in full — each
 * directory, then `okta` when configured — each in its own input's slot, so that they run side by
 * side and none waits for another; without any, the desired state as it is. An input whose sync
 * is still running or waits for approval is skipped until the next firing.
 */
export async function scheduledRound(deps: { service: SyncService; logger: Logger }): Promise<void> {
  const { service, logger } = deps;
  const inputs = service.inputsToSchedule();
  for (const input of inputs.length === 0 ? [undefined] : inputs) {
    const { jobId, started } = await service.start({
      dryRun: false,
      trigger: 'schedule',
      ...(input === undefined ? {} : { input }),
    });
    if (started) logger.info({ syncId: jobId, input }, 'scheduled full sync queued');
    else
      logger.info({ syncId: jobId, input }, "scheduled full sync skipped: the input's last one still runs");
  }
}

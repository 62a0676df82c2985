/** Jobs of the sync queue: run a full reconciliation, continue an approved one, or start one on schedule. */
export type SyncJobName = 'run' | 'approve' | 'scheduled' | typeof SCHEDULER_ID;

export interface SyncJobData {
  /** Absent for scheduled jobs, which create their syncs when they fire. */
  syncId?: string;
}

/** The id of the job scheduler that fires SYNC_SCHEDULE (BullMQ types it as a job name). */
export const SCHEDULER_ID = 'full-sync' as const;

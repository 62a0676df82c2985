import { Queue, Worker } from 'bullmq';
import type { Logger } from '../ops/logger.js';
import type { RedisClient } from '../store/redis-connection.js';
import { inputReadSchedulerId } from './job-ids.js';
import { QUEUES } from './queue-names.js';

/** A pull of an input: a change read of its source (sync/delta-run.ts). */
export type InputReadName = 'delta';

export interface InputReadJobData {
  owner: string;
}

/** One recurring read: which, of which input, how often. */
export interface InputReadSchedule {
  name: InputReadName;
  owner: string;
  everyMs: number;
}

export interface InputReadsDeps {
  /** Runs one read of an input (sync/delta-run.ts). */
  read: Record<InputReadName, (owner: string) => Promise<unknown>>;
  logger: Logger;
}

export interface InputReadsWorker {
  readonly queue: Queue<InputReadJobData>;
  close(): Promise<void>;
}

/**
 * The recurring reads of the inputs that are pulled (SPEC §5.3, §5.4), as BullMQ job schedulers on
 * one queue: however many worker processes run, each read runs once per interval and never twice
 * at a time. The schedules are set at start: one no longer configured is removed. A read that
 * fails is logged; the next interval tries again (the read itself records its failures).
 */
export async function startInputReads(
  connection: RedisClient,
  deps: InputReadsDeps,
  settings: { queuePrefix: string; schedules: readonly InputReadSchedule[] },
): Promise<InputReadsWorker> {
  const queue = new Queue<InputReadJobData>(QUEUES.inputs, { connection, prefix: settings.queuePrefix });
  queue.on('error', () => undefined);
  await applySchedules(queue, settings.schedules);
  // Each input's read runs beside the others' (one slow read never delays another input's), and
  // never twice at once in this process.
  const running = new Set<string>();
  const worker = new Worker<InputReadJobData>(
    QUEUES.inputs,
    async (job) => {
      // Jobs of another name (a `poll` of Okta's System Log, before it became okta's change read) do nothing.
      if (job.name !== 'delta' || running.has(job.data.owner)) return;
      running.add(job.data.owner);
      try {
        await deps.read.delta(job.data.owner);
      } finally {
        running.delete(job.data.owner);
      }
    },
    { connection, prefix: settings.queuePrefix, concurrency: Math.max(1, settings.schedules.length) },
  );
  worker.on('error', (error) => deps.logger.warn({ err: error.message }, 'input reads worker error'));
  worker.on('failed', (job, error) =>
    deps.logger.warn({ input: job?.data.owner, read: job?.name, err: error.message }, 'input read failed'),
  );
  return {
    queue,
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}

async function applySchedules(
  queue: Queue<InputReadJobData>,
  schedules: readonly InputReadSchedule[],
): Promise<void> {
  const wanted = new Map(schedules.map((s) => [inputReadSchedulerId(s.name, s.owner), s]));
  for (const existing of await queue.getJobSchedulers()) {
    if (existing.key && !wanted.has(existing.key)) await queue.removeJobScheduler(existing.key);
  }
  for (const [id, schedule] of wanted) {
    await queue.upsertJobScheduler(
      id,
      { every: schedule.everyMs },
      {
        name: schedule.name,
        data: { owner: schedule.owner },
        opts: { removeOnComplete: 10, removeOnFail: 10 },
      },
    );
  }
}

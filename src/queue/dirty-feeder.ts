import { parseKey, type IdentityKey } from '../domain/identity.js';
import type { Logger } from '../ops/logger.js';
import type { ReconcileStateStore } from '../store/reconcile-state.store.js';

export interface FeederSettings {
  /**
   * How often new dirty marks are turned into jobs when no wake-up comes (the inputs' batches wake
   * the feeder at once; other marks — a conflict resolved, a run that saw a change — wait this long).
   */
  feedMs: number;
  /** Marks older than this without a finished run are enqueued again (a job may have been lost). */
  sweepGraceMs: number;
  sweepMs: number;
  /** Marks read and enqueued at once: small enough that one addBulk does not hold the event loop. */
  batch: number;
}

export const FEEDER_DEFAULTS: FeederSettings = {
  feedMs: 250,
  sweepGraceMs: 60_000,
  sweepMs: 30_000,
  batch: 250,
};

/** The wake-up the inputs' batches give the feeder (store/dirty-wake.store.ts). */
export interface Wake {
  /** True when woken within `timeoutMs`. */
  wait(timeoutMs: number): Promise<boolean>;
  close(): void;
}

/**
 * The outbox: every change to the desired state marks its identity dirty (score: the time of the
 * change) in the same atomic script, and a finished run clears the mark. The feeder turns new
 * marks into reconcile jobs as soon as the batch that wrote them wakes it (a blocking read of a
 * token the same script pushes), or every `feedMs` — so an input only writes to Redis and never
 * waits on the queue — and the sweep enqueues marks left old (a job lost to a crash). Several
 * worker processes may feed the same marks: deduplication by identity makes that harmless.
 */
export function startDirtyFeeder(
  state: ReconcileStateStore,
  enqueue: (keys: readonly IdentityKey[]) => Promise<void>,
  logger: Logger,
  settings: FeederSettings = FEEDER_DEFAULTS,
  wake?: Wake,
): { stop(): void; feed(): Promise<number>; sweep(): Promise<number> } {
  const enqueueMarks = async (marks: readonly string[]) => {
    const keys = marks.map(parseKey).filter((k): k is IdentityKey => k !== undefined);
    if (keys.length > 0) await enqueue(keys);
  };
  const { feed, rewind } = newMarkFeed(state, enqueueMarks, settings);
  // After a lost connection (a failover above all), runs that cleared marks and jobs enqueued for
  // them may be gone with the old primary while the marks themselves survived: feed again every
  // mark of the last sweepGraceMs now, rather than leave them to the sweep (deduplication by
  // identity keeps the jobs already queued single).
  const unsubscribe = state.clock.onReconnect(rewind);
  const sweep = async (): Promise<number> => {
    const stale = await state.staleDirtyKeys(state.clock.now() - settings.sweepGraceMs, settings.batch);
    await enqueueMarks(stale);
    return stale.length;
  };
  const feeding = wake ? wakeLoop(feed, wake, settings.feedMs, logger) : undefined;
  const timers = [
    ...(feeding ? [] : [repeat(feed, settings.feedMs, logger)]),
    repeat(sweep, settings.sweepMs, logger),
  ];
  const stop = () => {
    unsubscribe();
    feeding?.stop();
    timers.forEach((t) => clearInterval(t));
  };
  return { stop, feed, sweep };
}

/**
 * Reads marks newer than a cursor and enqueues each new one once. Reading from a little before the
 * newest mark seen covers marks written by a process whose clock is slightly behind; the ones
 * already fed at the same score are skipped.
 */
function newMarkFeed(
  state: ReconcileStateStore,
  enqueueMarks: (marks: readonly string[]) => Promise<void>,
  settings: FeederSettings,
): { feed(): Promise<number>; rewind(): void } {
  const overlapMs = 1000;
  let cursor = state.clock.now() - settings.sweepGraceMs;
  let fed = new Map<string, number>();
  let rewinds = 0;
  const rewind = () => {
    rewinds++;
    cursor = state.clock.now() - settings.sweepGraceMs;
    fed = new Map();
  };
  const prune = () => {
    if (fed.size < 10_000) return;
    fed = new Map([...fed].filter(([, score]) => score >= cursor - overlapMs));
  };
  const feed = async () => {
    const rewound = rewinds;
    const from = cursor - overlapMs;
    let total = 0;
    let newest = cursor;
    for (;;) {
      const marks = await state.dirtySince(from, settings.batch, total);
      const fresh = marks.filter(({ key, score }) => fed.get(key) !== score);
      await enqueueMarks(fresh.map((m) => m.key));
      for (const { key, score } of fresh) fed.set(key, score);
      total += marks.length;
      newest = Math.max(newest, marks.at(-1)?.score ?? newest);
      if (marks.length < settings.batch) break;
    }
    // A mark's score may run ahead of the clock (it grows by at least 1 ms per change of a busy
    // identity): the cursor never does, or marks written at the real time would fall behind it.
    // A rewind while this feed ran holds: the next feed starts from it.
    if (rewinds === rewound) cursor = Math.min(newest, state.clock.now());
    prune();
    return total;
  };
  return { feed, rewind };
}

/**
 * Feeds whenever a batch wakes it, and at least every `every` ms; one feed at a time. A wait that
 * fails at once (Redis unreachable) is followed by a pause, never a busy loop.
 */
function wakeLoop(feed: () => Promise<number>, wake: Wake, every: number, logger: Logger): { stop(): void } {
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const started = Date.now();
      const woken = await wake.wait(every);
      if (stopped) return;
      if (!woken && Date.now() - started < every / 2) await pause(every);
      await feed().catch((error: unknown) => logger.debug({ err: String(error) }, 'dirty feed failed'));
    }
  };
  void loop();
  return {
    stop: () => {
      stopped = true;
      wake.close();
    },
  };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Runs `work` every `every` ms, never two at once, without keeping the process alive. */
function repeat(work: () => Promise<number>, every: number, logger: Logger): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    work()
      .catch((error: unknown) => logger.debug({ err: String(error) }, 'dirty feed failed'))
      .finally(() => (running = false));
  }, every);
  timer.unref();
  return timer;
}

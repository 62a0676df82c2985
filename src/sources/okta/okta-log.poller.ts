import { isBridgeError } from '../../domain/errors.js';
import type { Logger } from '../../ops/logger.js';
import type { OktaEventJobData } from '../../queue/okta-events-job.js';
import type { InputFreshnessStore } from '../../store/input-freshness.store.js';
import type { OktaLogCursor, OktaLogStore } from '../../store/okta-log.store.js';
import { asBridgeError } from '../../store/redis-errors.js';
import type { OktaLogPages } from './okta-api.client.js';
import { readOktaEvent } from './okta-event.js';
import { LOG_READ_DEFAULTS, readLogFrom, type LogRead, type LogReadSettings } from './okta-system-log.js';

/**
 * The gap-filler (SPEC §5.3, Missed hooks): Okta sends a hook once plus one retry, so every
 * OKTA_LOG_POLL_SECONDS the okta input reads the System Log since its cursor (okta-system-log.ts)
 * and feeds what the hooks did not bring to the same okta-events queue and processor. Hooks and
 * the poller share one de-duplication by the event's `uuid`: each path marks an event first seen
 * once it is queued (okta-log.store.ts); the poller queues only events no path marked, and those
 * it marks itself are the missed hooks (counted in scim_bridge_okta_missed_events_total and the
 * input's freshness). The cursor is kept once the events are queued, never before.
 *
 * The first poll starts from now (`since`), not from the log's beginning (a full sync loads what
 * was there before). A cursor Okta refuses (too old) restarts from now and starts a full sync of
 * the okta input, which replaces what the lost stretch of log would have changed; while another
 * sync holds the one slot, that full read stays owed (kept in Redis) and each poll tries to start
 * it again until it starts. If a read from now is refused too, the cursor was not the trouble and
 * the poll fails. A rate-limited read waits
 * for the bucket's reset, never hammering. A failed poll keeps its cursor for the next one.
 */

export interface OktaLogPollerDeps {
  okta: OktaLogPages;
  store: Pick<OktaLogStore, 'cursor' | 'setCursor' | 'unseen' | 'fullReadOwed' | 'setFullReadOwed'>;
  /** The okta-events producer: queues the events, returns those the poll saw first. */
  producer: { enqueueMissed(events: readonly OktaEventJobData[]): Promise<string[]> };
  freshness: Pick<InputFreshnessStore, 'readSucceeded' | 'readFailed' | 'missed'>;
  /** Starts a full sync of the okta input (or finds the one running). */
  startFullSync(): Promise<{ jobId: string; started: boolean }>;
  /** scim_bridge_okta_missed_events_total */
  missedEvents: { inc(count: number): void };
  logger: Logger;
  now: () => number;
  settings?: Partial<LogReadSettings>;
}

export type PollOutcome = 'polled' | 'restarted' | 'failed';

const OWNER = 'okta';
/** Failed polls in a row after which they are logged as errors. */
const FAILING_AFTER = 3;

export async function pollOktaLog(deps: OktaLogPollerDeps): Promise<PollOutcome> {
  const log = deps.logger.child({ input: OWNER, read: 'poll' });
  const settings = { ...LOG_READ_DEFAULTS, ...deps.settings };
  try {
    const stored = await deps.store.cursor();
    const { read, refused } = await readOrRestart(deps, stored, settings);
    // Owed before the cursor moves on: a crash in between still reads Okta in full.
    if (refused !== undefined) await deps.store.setFullReadOwed(true);
    const fed = await feed(deps, read.events);
    await deps.store.setCursor(read.cursor);
    const changeAt = fed.newest === undefined ? {} : { changeAt: fed.newest };
    await deps.freshness.readSucceeded(OWNER, { at: deps.now(), kind: 'poll', ...changeAt });
    if (fed.missed > 0 || fed.queued > 0) log.info({ read: read.events.length, ...fed }, 'okta log polled');
    if (refused !== undefined) {
      const { jobId, started } = await startOwedRead(deps);
      log.warn(
        { err: refused, syncId: jobId, started },
        started
          ? 'Okta refused the System Log cursor: polling goes on from now, and the okta input is read in full'
          : 'Okta refused the System Log cursor: polling goes on from now; the okta input is read in full once the sync running ends',
      );
      return 'restarted';
    }
    if (await deps.store.fullReadOwed()) {
      const { jobId, started } = await startOwedRead(deps);
      if (started)
        log.warn(
          { syncId: jobId },
          'the full read of the okta input owed since Okta refused the System Log cursor starts',
        );
    }
    return 'polled';
  } catch (error) {
    return failed(deps, error, log);
  }
}

/** Starts the owed full read of the okta input; it stays owed while another sync holds the slot. */
async function startOwedRead(deps: OktaLogPollerDeps): Promise<{ jobId: string; started: boolean }> {
  const start = await deps.startFullSync();
  if (start.started) await deps.store.setFullReadOwed(false);
  return start;
}

/** The read from the stored cursor, or from now: on the first poll, or when Okta refused it (why). */
async function readOrRestart(
  deps: OktaLogPollerDeps,
  stored: OktaLogCursor | undefined,
  settings: LogReadSettings,
): Promise<{ read: LogRead; refused?: string }> {
  const fromNow = (): OktaLogCursor => ({ since: new Date(deps.now()).toISOString() });
  if (!stored) return { read: await readLogFrom(deps.okta, fromNow(), settings) };
  try {
    return { read: await readLogFrom(deps.okta, stored, settings) };
  } catch (error) {
    if (!isBridgeError(error, 'watermark_untrusted')) throw error;
    return { read: await readLogFrom(deps.okta, fromNow(), settings), refused: error.message };
  }
}

/** Queues the handled events no path has seen; returns what it did. */
async function feed(deps: OktaLogPollerDeps, raws: readonly unknown[]) {
  const now = deps.now();
  const jobs = raws.flatMap((raw) => {
    const read = readOktaEvent(raw, now);
    return read.ok ? [read.job] : [];
  });
  const newest = jobs.length === 0 ? undefined : Math.max(...jobs.map((job) => job.published));
  const unseen = new Set(await deps.store.unseen(jobs.map((job) => job.uuid)));
  const fresh = jobs.filter((job) => unseen.has(job.uuid));
  const missed = (await deps.producer.enqueueMissed(fresh)).length;
  if (missed > 0) {
    deps.missedEvents.inc(missed);
    await deps.freshness.missed(OWNER, missed);
  }
  return { queued: fresh.length, missed, ...(newest === undefined ? {} : { newest }) };
}

async function failed(deps: OktaLogPollerDeps, error: unknown, log: Logger): Promise<PollOutcome> {
  const failure = asBridgeError(error);
  const failures = await deps.freshness.readFailed(OWNER, failure.message).catch(() => 0);
  const fields = { code: failure.code, side: failure.side, err: failure.message, failures };
  if (failures >= FAILING_AFTER) log.error(fields, 'okta log polls keep failing');
  else log.warn(fields, 'okta log poll failed: tried again at the next interval');
  return 'failed';
}

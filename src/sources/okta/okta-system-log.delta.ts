import { BridgeError } from '../../domain/errors.js';
import type { DeltaChanges, DeltaRead, SourceChange, Watermark } from '../../domain/input.js';
import type { ReadOptions } from '../../domain/snapshot-sink.js';
import type { OktaApiClient } from './okta-api.client.js';
import { readOktaEvent } from './okta-event.js';
import { readOktaEventChanges, type OktaEventReadDeps } from './okta-event.processor.js';
import {
  LOG_READ_DEFAULTS,
  readLogFrom,
  type LogReadSettings,
  type OktaLogCursor,
} from './okta-system-log.js';

const KIND = 'okta-system-log';

/**
 * Events younger than this are left to the next read: their hook is most likely on its way (Okta
 * delivers within a second or two), and one that arrives is applied by the hook — the read that
 * brought an event first is what counts it as a missed hook.
 */
export const HOOK_GRACE_MS = 3000;

/**
 * The okta input's change read (SPEC §5.3, Missed hooks): Okta sends a hook once plus one retry, so
 * every OKTA_LOG_POLL_SECONDS its System Log is read since the watermark — the cursor of the last
 * read (okta-system-log.ts) — and each handled event becomes the changes a hook would have made,
 * from Okta's current state (okta-event.changes.ts). Each change names its event: the store applies
 * an event once, whichever of the hook and this read brings it first (what this read brought first
 * are the missed hooks). A cursor Okta refuses (too old) is `watermark_untrusted`: the input is read
 * in full, and the log read from where that read began. The cursor moves only once the changes are
 * applied (sync/delta-run.ts).
 */
export class OktaSystemLogDelta implements DeltaRead {
  readonly watermarkKind = KIND;
  /** One client for every read: its pacer remembers Okta's rate-limit buckets from one read to the next. */
  private client: OktaApiClient | undefined;

  constructor(
    /** OKTA_LOG_POLL_SECONDS. */
    readonly everySeconds: number,
    private readonly open: () => OktaApiClient,
    private readonly origin: string,
    private readonly events: Omit<OktaEventReadDeps, 'okta' | 'readUser'>,
    private readonly now: () => number = Date.now,
    private readonly settings: LogReadSettings = LOG_READ_DEFAULTS,
  ) {}

  /** From now: a full read that begins now loads what was there before. */
  position(): Promise<Watermark> {
    return Promise.resolve(this.watermark({ since: new Date(this.now()).toISOString() }));
  }

  async changesSince(watermark: Watermark, _options?: ReadOptions): Promise<DeltaChanges> {
    const from = this.cursorOf(watermark);
    const okta = (this.client ??= this.open());
    const read = await readLogFrom(okta, from, this.settings);
    const changes: SourceChange[] = [];
    let newest: number | undefined;
    let cursor: OktaLogCursor = read.cursor;
    for (const raw of read.events) {
      const event = readOktaEvent(raw, this.now());
      if (!event.ok) continue;
      if (event.job.published > this.now() - HOOK_GRACE_MS) {
        // The next read starts at this event's time (what it reads again is applied once).
        cursor = { since: new Date(event.job.published).toISOString() };
        break;
      }
      newest = Math.max(newest ?? 0, event.job.published);
      const plan = await readOktaEventChanges({ ...this.events, okta }, event.job);
      if ('changes' in plan) changes.push(...plan.changes);
    }
    // A scope reading membership follows the log: each membership event's user is read again with
    // its groups (okta-event.processor.ts); a group's own change (a rename) still asks for a full read.
    const groups = changes.some((c) => c.op !== 'members' && c.kind === 'groups');
    return {
      changes,
      membershipStated: this.events.readsMembership === true && !groups,
      watermark: this.watermark(cursor),
      entriesRead: read.events.length,
      ...(newest === undefined ? {} : { newestChangeAt: newest }),
    };
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  private watermark(cursor: OktaLogCursor): Watermark {
    return { kind: KIND, value: JSON.stringify(cursor), origin: this.origin };
  }

  private cursorOf(watermark: Watermark): OktaLogCursor {
    if (watermark.kind !== KIND || watermark.origin !== this.origin)
      throw new BridgeError(
        'watermark_untrusted',
        `the watermark is not of Okta's System Log at ${this.origin}`,
      );
    const parsed = JSON.parse(watermark.value) as Record<string, unknown>;
    if (typeof parsed.after === 'string') return { after: parsed.after };
    if (typeof parsed.since === 'string') return { since: parsed.since };
    throw new BridgeError('watermark_untrusted', "the System Log's watermark cannot be read");
  }
}

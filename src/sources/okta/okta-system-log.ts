import { BridgeError, isBridgeError } from '../../domain/errors.js';
import {
  OKTA_GROUP_DELETE_EVENTS,
  OKTA_GROUP_EVENTS,
  OKTA_MEMBERSHIP_EVENTS,
  OKTA_USER_DELETE_EVENTS,
  OKTA_USER_EVENTS,
} from '../../queue/okta-events-job.js';
import type { OktaLogPages } from './okta-api.client.js';

/**
 * Reading Okta's System Log as a poller (developer.okta.com, System Log API, "Polling requests"):
 * `GET /api/v1/logs` without `until`, `sortOrder=ASCENDING`, one `filter` for the event types the
 * hook path handles, from a cursor — the `after` of the last `next` link, or a `since` time. A
 * polling request always gets a `next` link, even on an empty page; the read follows it as given
 * until a page comes back short of the limit (caught up) and keeps the last one's `after`.
 * An answer 400 to the read (Okta refuses a cursor it no longer honours) is `watermark_untrusted`.
 */

/** Every event type the hook path handles (okta-events-job.ts). */
export const HANDLED_EVENT_TYPES: readonly string[] = [
  ...OKTA_USER_EVENTS,
  ...OKTA_USER_DELETE_EVENTS,
  ...OKTA_MEMBERSHIP_EVENTS,
  ...OKTA_GROUP_EVENTS,
  ...OKTA_GROUP_DELETE_EVENTS,
];

/** The one System Log filter of the handled event types. */
export function handledEventsFilter(): string {
  return HANDLED_EVENT_TYPES.map((type) => `eventType eq "${type}"`).join(' or ');
}

/** Where the System Log is read from: the `after` of Okta's last `next` link, or a start time. */
export type OktaLogCursor = { after: string } | { since: string };

export interface LogReadSettings {
  /** Events per page (Okta: at most 1000). */
  limit: number;
  /** Pages read per poll; the rest waits for the next one. */
  maxPages: number;
}

export const LOG_READ_DEFAULTS: Readonly<LogReadSettings> = { limit: 1000, maxPages: 10 };

export interface LogRead {
  /** The raw LogEvents read, in the order Okta gave them. */
  events: unknown[];
  /** Where the next read continues. */
  cursor: { after: string };
}

export async function readLogFrom(
  okta: OktaLogPages,
  from: OktaLogCursor,
  settings: LogReadSettings = LOG_READ_DEFAULTS,
): Promise<LogRead> {
  const events: unknown[] = [];
  let path = firstPath(from, settings.limit);
  for (let pages = 1; ; pages++) {
    const page = await refusalAsUntrusted(() => okta.logPage(path));
    if (!Array.isArray(page.body)) {
      throw new BridgeError('source_invalid', "Okta's System Log answered with something other than a list");
    }
    events.push(...(page.body as unknown[]));
    const after = page.next === undefined ? null : new URL(page.next).searchParams.get('after');
    if (page.next === undefined || after === null) {
      throw new BridgeError(
        'source_invalid',
        "Okta's System Log answered a polling request without a next link",
      );
    }
    if (page.body.length < settings.limit || pages >= settings.maxPages) return { events, cursor: { after } };
    path = page.next;
  }
}

function firstPath(from: OktaLogCursor, limit: number): string {
  const query = new URLSearchParams({
    sortOrder: 'ASCENDING',
    limit: String(limit),
    filter: handledEventsFilter(),
    ...('after' in from ? { after: from.after } : { since: from.since }),
  });
  return `api/v1/logs?${query.toString().replace(/\+/g, '%20')}`;
}

async function refusalAsUntrusted<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isBridgeError(error, 'source_invalid') || error.status !== 400) throw error;
    throw new BridgeError('watermark_untrusted', `Okta refused the System Log cursor: ${error.message}`, {
      cause: error,
      status: 400,
      ...(error.detail ? { detail: error.detail } : {}),
    });
  }
}

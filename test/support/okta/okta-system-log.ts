import { randomBytes } from 'node:crypto';
import { parseOktaFilter, OktaFilterError, type OktaFilter } from './okta-filter.js';
import { oktaError, type Reply } from './okta-json.js';

/**
 * Okta's System Log as `GET /api/v1/logs` serves it (developer.okta.com, System Log API):
 *
 * - `since`, `until` (RFC 3339), `filter` (expression over LogEvent attributes), `sortOrder`
 *   (ASCENDING by default, or DESCENDING), `limit` (default 100, at most 1000), `after` (opaque, from
 *   a `next` link; `since` and `after` are mutually exclusive).
 * - A *polling* request (no `until`, ascending) filters by the time an event was stored, and always
 *   gets a `rel="next"` link, even on an empty page: its `after` continues after the last event
 *   looked at. A *bounded* request (`until` given) filters by `published`, and its last page has no
 *   `next`. Every answer has a `rel="self"` link.
 * - Errors as the reference documents them: a date it cannot read, 400 E0000001; `since` more than
 *   180 days ago, 400 E0000053 ("Invalid parameter: The since parameter is over 180 days prior to
 *   the current day."); an invalid filter, 400 E0000053. The reference gives no separate answer for
 *   an `after` it no longer honours: here a cursor issued before the log's retention horizon
 *   (`expireAll`), or one this log never issued, gets the same 400 E0000053, naming `after`.
 */

export interface StoredEvent {
  /** When the log stored it (ms): what polling requests filter on. */
  storedAt: number;
  event: Record<string, unknown> & { published: string };
}

interface Cursor {
  /** Absolute position in the log: the next event to look at. */
  position: number;
  issuedAt: number;
}

const DAY_MS = 24 * 3600 * 1000;

export class OktaSystemLog {
  /**
   * How long after an event the log can list it: Okta's System Log is near real-time, and Event
   * Hooks are sent as events happen, so a hook usually arrives before a poll can see its event.
   */
  visibleAfterMs = 250;
  private readonly events: StoredEvent[] = [];
  /** Events dropped from the front (retention): positions below it are gone. */
  private dropped = 0;
  private horizon = 0;
  private readonly epoch = randomBytes(4).toString('hex');

  append(event: StoredEvent['event']): void {
    this.events.push({ storedAt: Date.now() + this.visibleAfterMs, event });
  }

  all(): StoredEvent['event'][] {
    return this.events.map((e) => e.event);
  }

  /** Retention passes over everything so far: every event is dropped, every cursor issued refused. */
  expireAll(): void {
    this.dropped += this.events.length;
    this.events.length = 0;
    this.horizon = Date.now() + 1;
  }

  list(url: URL): Reply {
    const params = url.searchParams;
    const problem = validate(params);
    if (problem) return problem;
    let filter: OktaFilter | undefined;
    try {
      filter = params.has('filter') ? parseOktaFilter(params.get('filter') ?? '') : undefined;
    } catch (error) {
      if (!(error instanceof OktaFilterError)) throw error;
      return { status: 400, body: oktaError('E0000053', error.message) };
    }
    const limit = Math.min(Math.max(Number(params.get('limit') ?? 100), 0), 1000);
    const descending = params.get('sortOrder') === 'DESCENDING';
    if (!params.has('until') && !descending) return this.poll(url, filter, limit);
    return this.bounded(url, filter, limit, descending);
  }

  private poll(url: URL, filter: OktaFilter | undefined, limit: number): Reply {
    const after = url.searchParams.get('after');
    let start: number;
    if (after !== null) {
      const cursor = this.decode(after);
      if (!cursor) return invalidAfter();
      start = cursor.position;
    } else {
      const since = sinceOf(url.searchParams);
      const index = this.events.findIndex((e) => e.storedAt >= since);
      start = this.dropped + (index === -1 ? this.events.length : index);
    }
    const page: StoredEvent['event'][] = [];
    let position = Math.max(start, this.dropped);
    const now = Date.now();
    while (position < this.dropped + this.events.length && page.length < limit) {
      const stored = this.events[position - this.dropped] as StoredEvent;
      if (stored.storedAt > now) break;
      position++;
      if (!filter || filter(stored.event)) page.push(stored.event);
    }
    const next = new URL(url);
    next.searchParams.delete('since');
    next.searchParams.set('after', this.encode(position));
    return { status: 200, body: page, links: { self: url, next } };
  }

  private bounded(url: URL, filter: OktaFilter | undefined, limit: number, descending: boolean): Reply {
    const params = url.searchParams;
    const until = params.has('until') ? Date.parse(params.get('until') ?? '') : Date.now();
    const since = sinceOf(params, until);
    const now = Date.now();
    const matching = this.events
      .filter((e) => e.storedAt <= now)
      .map((e) => e.event)
      .filter((e) => Date.parse(e.published) >= since && Date.parse(e.published) < until)
      .filter((e) => !filter || filter(e))
      .sort((a, b) => Date.parse(a.published) - Date.parse(b.published));
    if (descending) matching.reverse();
    const after = params.get('after');
    const offset = after === null ? 0 : this.decode(after)?.position;
    if (offset === undefined) return invalidAfter();
    const page = matching.slice(offset, offset + limit);
    const links: Reply['links'] = { self: url };
    if (offset + limit < matching.length) {
      const next = new URL(url);
      next.searchParams.set('after', this.encode(offset + limit));
      links.next = next;
    }
    return { status: 200, body: page, links };
  }

  private encode(position: number): string {
    const cursor: Cursor = { position, issuedAt: Date.now() };
    return Buffer.from(`${this.epoch}.${JSON.stringify(cursor)}`).toString('base64url');
  }

  private decode(token: string): Cursor | undefined {
    const text = Buffer.from(token, 'base64url').toString('utf8');
    const dot = text.indexOf('.');
    if (dot < 0 || text.slice(0, dot) !== this.epoch) return undefined;
    try {
      const cursor = JSON.parse(text.slice(dot + 1)) as Cursor;
      if (!Number.isInteger(cursor.position) || cursor.issuedAt < this.horizon) return undefined;
      if (cursor.position < this.dropped) return undefined;
      return cursor;
    } catch {
      return undefined;
    }
  }
}

function validate(params: URLSearchParams): Reply | undefined {
  for (const name of ['since', 'until']) {
    const value = params.get(name);
    if (value !== null && value !== '' && Number.isNaN(Date.parse(value))) {
      return {
        status: 400,
        body: oktaError(
          'E0000001',
          `Api validation failed: '${name}': The date format in your query is not recognized. Please enter dates using ISO8601 string format.. '${name}': must be a valid date-time or empty.`,
        ),
      };
    }
  }
  const since = params.get('since');
  if (since && Date.parse(since) < Date.now() - 180 * DAY_MS) {
    return {
      status: 400,
      body: oktaError(
        'E0000053',
        'Invalid parameter: The since parameter is over 180 days prior to the current day.',
      ),
    };
  }
  if (params.has('since') && params.has('after')) {
    return {
      status: 400,
      body: oktaError('E0000053', 'Invalid parameter: since and after are mutually exclusive.'),
    };
  }
  return undefined;
}

/** `since`, or 7 days before `until` (now for polling requests), as the reference defaults it. */
function sinceOf(params: URLSearchParams, until = Date.now()): number {
  const since = params.get('since');
  return since ? Date.parse(since) : until - 7 * DAY_MS;
}

function invalidAfter(): Reply {
  return {
    status: 400,
    body: oktaError('E0000053', 'Invalid parameter: The after parameter is not valid or has expired.'),
  };
}

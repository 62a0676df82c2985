import { z } from 'zod';
import { BridgeError, isBridgeError } from '../../../domain/errors.js';
import type { Watermark } from '../../../domain/input.js';
import { REPORTS, type GoogleApi } from './google-api.js';
import { answerTime, walkList } from './google-pages.js';

/**
 * Google's audit logs as a change feed (Reports API activities.list; docs/google-workspace.md,
 * "How fresh"): the `admin` log (what administrators change: users, groups, memberships) and the
 * `groups_enterprise` log (memberships changed by a group's owners and managers). Records show up
 * late — "near real time (couple of minutes)", sometimes later (support.google.com/a/answer/7061566)
 * — and out of order, so each read goes back `logOverlapSeconds` before its watermark and keeps
 * the records it has already seen there (by `id.time` and `id.uniqueQualifier`) to pass over them.
 *
 * The watermark (`google-audit`): its value is the time the last read began on Google's clock (the
 * first answer's `Date`) and the records seen since that time less the overlap; its origin is the
 * customer and the administrator acted for. The log reaches back 180 days; a watermark older than
 * that, or a start Google refuses, is untrusted (the input is read in full).
 */

export const WATERMARK_KIND = 'google-audit';
export const APPLICATIONS = ['admin', 'groups_enterprise'] as const;
export type Application = (typeof APPLICATIONS)[number];

/** How far back the Reports API reaches (manage-audit-admin), less an hour's margin. */
export const REACH_MS = 180 * 24 * 3600_000 - 3600_000;
/** Records seen that a watermark keeps at most (the oldest are let go: read again, they change nothing). */
const SEEN_LIMIT = 20_000;

const positionSchema = z.object({ at: z.iso.datetime(), seen: z.array(z.string()) });

export interface AuditPosition {
  /** Where the last read began (ms, Google's clock). */
  at: number;
  /** Keys (`time|uniqueQualifier`) of the records read since `at` less the overlap. */
  seen: readonly string[];
}

export interface AuditEvent {
  key: string;
  time: number;
  application: Application;
  type: string;
  name: string;
  parameters: ReadonlyMap<string, string>;
}

export function watermarkOf(position: AuditPosition, origin: string): Watermark {
  const value = JSON.stringify({ at: new Date(position.at).toISOString(), seen: position.seen });
  return { kind: WATERMARK_KIND, value, origin };
}

/** The position a watermark holds; untrusted when it is another kind's, another customer's, or garbled. */
export function positionOf(watermark: Watermark, origin: string): AuditPosition {
  if (watermark.kind !== WATERMARK_KIND)
    throw untrusted(`a ${watermark.kind} watermark is not the audit log's`);
  if (watermark.origin !== origin)
    throw untrusted('the watermark was read for another customer or administrator');
  let parsed: z.output<typeof positionSchema> | undefined;
  try {
    parsed = positionSchema.parse(JSON.parse(watermark.value));
  } catch {
    throw untrusted('the watermark cannot be read');
  }
  return { at: Date.parse(parsed.at), seen: parsed.seen };
}

export function untrusted(reason: string): BridgeError {
  return new BridgeError('watermark_untrusted', `Google's audit log: ${reason}; the input is read in full`);
}

export interface LogRead {
  /** New records, oldest first, each once. */
  events: AuditEvent[];
  /** Where this read began, on Google's clock. */
  at: number;
  /** Every record read (seen before or not). */
  keys: Map<string, number>;
}

const FIELDS =
  'nextPageToken,items(id(time,uniqueQualifier),events(type,name,parameters(name,value,intValue,multiValue)))';

/** The records of both logs since `since`, less those seen before. */
export async function readLog(
  api: GoogleApi,
  since: number,
  seen: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<LogRead> {
  const started = Date.now();
  const read: LogRead = { events: [], at: Number.NaN, keys: new Map() };
  for (const application of APPLICATIONS) {
    const customer = api.access.settings.customer;
    const walk = walkList(api, {
      path: `${REPORTS}/${application}`,
      params: {
        startTime: new Date(since).toISOString(),
        fields: FIELDS,
        ...(customer === 'my_customer' ? {} : { customerId: customer }),
      },
      itemsKey: 'items',
      pageSize: 1000,
      empty: 'allowed',
      idOf: (item) => recordKey(item)?.key,
      ...(signal ? { signal } : {}),
    });
    await collect(walk, application, read, seen);
  }
  if (Number.isNaN(read.at)) read.at = started;
  read.events.sort((a, b) => a.time - b.time || (a.key < b.key ? -1 : 1));
  return read;
}

async function collect(
  walk: ReturnType<typeof walkList>,
  application: Application,
  read: LogRead,
  seen: ReadonlySet<string>,
): Promise<void> {
  try {
    for await (const page of walk) {
      // The earliest `Date` of the read: a record Google keeps later with an earlier time is read next time.
      const time = answerTime(page.answer);
      if (time !== undefined && !(read.at <= time)) read.at = time;
      for (const item of page.items) {
        const id = recordKey(item);
        if (id === undefined || read.keys.has(id.key)) continue;
        read.keys.set(id.key, id.time);
        if (!seen.has(id.key)) read.events.push(...eventsOf(item, id, application));
      }
    }
  } catch (error) {
    // Google answers a start it no longer reaches (over 180 days) with 400.
    if (isBridgeError(error, 'source_invalid') && error.status === 400)
      throw untrusted(`the Reports API refused the start time (${error.message})`);
    throw error;
  }
}

function recordKey(item: unknown): { key: string; time: number } | undefined {
  const id = (item as { id?: { time?: unknown; uniqueQualifier?: unknown } } | null)?.id;
  const time = typeof id?.time === 'string' ? Date.parse(id.time) : Number.NaN;
  const qualifier = id?.uniqueQualifier;
  if (Number.isNaN(time) || (typeof qualifier !== 'string' && typeof qualifier !== 'number'))
    return undefined;
  return { key: `${time}|${String(qualifier)}`, time };
}

function eventsOf(item: unknown, id: { key: string; time: number }, application: Application): AuditEvent[] {
  const events = (item as { events?: unknown }).events;
  if (!Array.isArray(events)) return [];
  return events.flatMap((event: unknown) => {
    const { type, name, parameters } = (event ?? {}) as {
      type?: unknown;
      name?: unknown;
      parameters?: unknown;
    };
    if (typeof name !== 'string') return [];
    const values = new Map<string, string>();
    for (const p of Array.isArray(parameters) ? parameters : []) {
      const {
        name: key,
        value,
        intValue,
      } = (p ?? {}) as { name?: unknown; value?: unknown; intValue?: unknown };
      const text = typeof value === 'string' ? value : typeof intValue === 'string' ? intValue : undefined;
      if (typeof key === 'string' && text !== undefined) values.set(key, text);
    }
    return [
      {
        key: id.key,
        time: id.time,
        application,
        type: typeof type === 'string' ? type : '',
        name,
        parameters: values,
      },
    ];
  });
}

/** The records to keep as seen: those read whose time is within the overlap before `at`. */
export function keptSeen(keys: ReadonlyMap<string, number>, at: number, overlapMs: number): string[] {
  const kept = [...keys].filter(([, time]) => time >= at - overlapMs).sort((a, b) => b[1] - a[1]);
  return kept.slice(0, SEEN_LIMIT).map(([key]) => key);
}

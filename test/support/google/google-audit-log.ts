import { randomBytes } from 'node:crypto';
import { seeded, type GoogleClock } from './google-clock.js';
import { compare, newEtag } from './google-model.js';

/**
 * The audit logs the Reports API reads (developers.google.com/workspace/admin/reports/v1/reference/
 * activities): each record has `id {time, uniqueQualifier, applicationName, customerId}`, `actor
 * {email, profileId, callerType}`, `ipAddress`, `ownerDomain` and `events [{type, name,
 * parameters [{name, value | intValue | boolValue | multiValue}]}]`.
 *
 * Google is late and sometimes silent (support.google.com/a/answer/7061566: admin log events in
 * "near real time (couple of minutes)", some "delayed beyond", "in rare cases, events might not be
 * reported"): each record becomes visible a lag after its `time`, drawn per record between the
 * configured bounds (so records appear late and out of order), and the dropped-event fault keeps
 * a record from ever appearing. Records older than 180 days leave the log (manage-audit-admin:
 * "The maximum time period for each report is the last 180 days").
 */

export type Application = 'admin' | 'groups_enterprise';

export interface Parameter {
  name: string;
  value?: string;
  intValue?: string;
  boolValue?: boolean;
  multiValue?: string[];
}

export interface ActivityEvent {
  type: string;
  name: string;
  parameters: Parameter[];
}

export interface Actor {
  email: string;
  profileId: string;
}

export interface Activity {
  /** The record's position: time, then uniqueQualifier. */
  key: string;
  time: number;
  uniqueQualifier: string;
  applicationName: Application;
  actor: Actor;
  events: ActivityEvent[];
  /** When (Google's clock) the record shows up in answers; Infinity for a dropped one. */
  visibleAt: number;
  etag: string;
}

export const RETENTION_MS = 180 * 24 * 3600 * 1000;

export class AuditLog {
  /** Bounds of the per-record visibility lag, in ms. */
  lag = { minMs: 0, maxMs: 0 };
  /** Share of records dropped at random (0 by default), and a count of the next ones to drop. */
  dropRate = 0;
  dropNext = 0;
  private readonly keys: string[] = [];
  private readonly byKey = new Map<string, Activity>();
  private readonly random: () => number;

  constructor(
    private readonly clock: GoogleClock,
    readonly customerId: string,
    readonly ownerDomain: string,
    seed: number,
  ) {
    this.random = seeded(seed);
  }

  append(
    applicationName: Application,
    actor: Actor,
    events: ActivityEvent[],
    options: { visibleAfterMs?: number; time?: number } = {},
  ): Activity {
    const time = options.time ?? this.clock.now();
    const uniqueQualifier = randomBytes(8).readBigInt64BE().toString();
    const key = `${String(time).padStart(15, '0')}|${uniqueQualifier}`;
    const lag = options.visibleAfterMs ?? this.lag.minMs + this.random() * (this.lag.maxMs - this.lag.minMs);
    const activity: Activity = {
      key,
      time,
      uniqueQualifier,
      applicationName,
      actor,
      events,
      visibleAt: this.dropped() ? Infinity : time + Math.round(lag),
      etag: newEtag(),
    };
    this.byKey.set(key, activity);
    const at = this.keys.length > 0 && compare(this.keys[this.keys.length - 1] as string, key) > 0;
    if (at) this.keys.splice(insertionPoint(this.keys, key), 0, key);
    else this.keys.push(key);
    return activity;
  }

  /** Every record kept (visible or not yet, dropped ones too), oldest first. */
  all(): Activity[] {
    this.expire();
    return this.keys.map((key) => this.byKey.get(key) as Activity);
  }

  /** The ascending keys and their records, for a route to walk (after retention). */
  index(): { keys: readonly string[]; get: (key: string) => Activity } {
    this.expire();
    return { keys: this.keys, get: (key) => this.byKey.get(key) as Activity };
  }

  private dropped(): boolean {
    if (this.dropNext > 0) {
      this.dropNext--;
      return true;
    }
    return this.dropRate > 0 && this.random() < this.dropRate;
  }

  private expire(): void {
    const horizon = this.clock.now() - RETENTION_MS;
    let gone = 0;
    while (gone < this.keys.length && (this.byKey.get(this.keys[gone] as string)?.time ?? 0) < horizon)
      gone++;
    for (const key of this.keys.splice(0, gone)) this.byKey.delete(key);
  }
}

function insertionPoint(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(keys[middle] as string, key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The record as `activities.list` answers it. */
export function activityJson(log: AuditLog, activity: Activity): Record<string, unknown> {
  return {
    kind: 'admin#reports#activity',
    id: {
      time: new Date(activity.time).toISOString(),
      uniqueQualifier: activity.uniqueQualifier,
      applicationName: activity.applicationName,
      customerId: log.customerId,
    },
    etag: activity.etag,
    actor: { callerType: 'USER', email: activity.actor.email, profileId: activity.actor.profileId },
    ipAddress: '203.0.113.10',
    ownerDomain: log.ownerDomain,
    events: activity.events.map((event) => ({
      ...event,
      parameters: event.parameters.map((p) => ({ ...p })),
    })),
  };
}

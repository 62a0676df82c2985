/**
 * The Directory API's per-user quota (developers.google.com/workspace/admin/directory/v1/limits):
 * "Queries per minute per user" per Cloud project, 2,400 by default, answered over budget with
 * 403 userRateLimitExceeded. Requests are counted per (project, impersonated user) in minutes of
 * Google's clock; every counted request is kept, so a test or bench can read how many requests a
 * reader made per minute — the busiest sliding minute and each calendar minute.
 */

export interface Observed {
  total: number;
  refused: number;
  /** Most requests in any 60 seconds (sliding), over all (project, user) pairs. */
  peakPerMinute: number;
  /** Requests per whole minute of Google's clock, oldest first. */
  minutes: { start: number; count: number; refused: number }[];
}

const MINUTE_MS = 60_000;

export class QuotaMeter {
  perMinute = 2400;
  private readonly current = new Map<string, { minute: number; count: number }>();
  private readonly seen: { at: number; refused: boolean }[] = [];

  /** Counts a request; false when it is over the budget of its (project, user) this minute. */
  take(project: string, subject: string, now: number): boolean {
    const key = `${project} ${subject}`;
    const minute = Math.floor(now / MINUTE_MS);
    const window = this.current.get(key);
    const counted = window && window.minute === minute ? window : { minute, count: 0 };
    counted.count++;
    this.current.set(key, counted);
    const refused = counted.count > this.perMinute;
    this.seen.push({ at: now, refused });
    return !refused;
  }

  observed(): Observed {
    const minutes = new Map<number, { start: number; count: number; refused: number }>();
    let refused = 0;
    let peak = 0;
    let first = 0;
    for (let i = 0; i < this.seen.length; i++) {
      const { at, refused: no } = this.seen[i] as { at: number; refused: boolean };
      if (no) refused++;
      const start = Math.floor(at / MINUTE_MS) * MINUTE_MS;
      const bucket = minutes.get(start) ?? { start, count: 0, refused: 0 };
      bucket.count++;
      if (no) bucket.refused++;
      minutes.set(start, bucket);
      while ((this.seen[first] as { at: number }).at <= at - MINUTE_MS) first++;
      peak = Math.max(peak, i - first + 1);
    }
    return { total: this.seen.length, refused, peakPerMinute: peak, minutes: [...minutes.values()] };
  }
}

import { abortableWait } from './abortable-wait.js';

/**
 * A budget of requests per minute, for an API whose quota is counted that way (Google's Admin SDK:
 * 2,400 queries per minute per user and project by default). A token bucket kept as a schedule
 * (GCRA): each request reserves the next slot, slots `60 s / perMinute` apart, with a burst of one
 * second's worth; so no minute holds more than the budget plus that burst, and waiting requests
 * keep their order. The wait is abortable (a reservation given up is not handed back).
 */
export class RequestBudget {
  private readonly intervalMs: number;
  private readonly burstMs: number;
  /** When the next request would be on schedule (theoretical arrival time). */
  private nextAt = 0;

  constructor(
    perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(perMinute > 0)) throw new RangeError('A request budget needs a positive number per minute');
    this.intervalMs = 60_000 / perMinute;
    this.burstMs = (Math.max(Math.ceil(perMinute / 60), 1) - 1) * this.intervalMs;
  }

  /** Resolves when one more request fits the budget. */
  async take(signal?: AbortSignal): Promise<void> {
    const now = this.now();
    const slot = Math.max(this.nextAt, now);
    this.nextAt = slot + this.intervalMs;
    await abortableWait(slot - this.burstMs - now, signal);
  }
}

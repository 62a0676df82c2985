/**
 * Bounds on the times events carry. A source's clock may run ahead, and a sender may send any date:
 * an event dated far in the future would make every real event after it look older, so the identity
 * could never change again (out-of-order protection compares event times). A time more than a small
 * skew ahead of the bridge's clock is taken as "now": the event cannot have happened later than it
 * arrived.
 */

/** How far ahead of the bridge's clock an event time may be before it is clamped (clock skew). */
export const EVENT_TIME_SKEW_MS = 5 * 60_000;

/** The event time to apply: the given one, or `now` when it is more than the skew ahead of it. */
export function boundedEventTime(time: number, now: number): number {
  return time > now + EVENT_TIME_SKEW_MS ? now : time;
}

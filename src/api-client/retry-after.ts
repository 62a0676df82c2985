import { header, type Headers } from './answer.js';

/**
 * How long an answer's `Retry-After` asks to wait, in ms (RFC 9110 §10.2.3): either delay-seconds
 * (`120`) or an HTTP-date (`Fri, 31 Dec 1999 23:59:59 GMT`, §5.6.7). A date is measured against
 * the answer's own `Date` header (§6.6.1), not our clock, so a skew between the two clocks does not
 * lengthen or cut the wait; only an answer without a usable `Date` is measured against ours. A date
 * already past is no wait (0). Undefined when there is no header or it reads as neither form.
 */
export function retryAfterMs(headers: Headers, now: () => number = Date.now): number | undefined {
  const value = header(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const sent = Date.parse(header(headers, 'date') ?? '');
  return Math.max(at - (Number.isNaN(sent) ? now() : sent), 0);
}

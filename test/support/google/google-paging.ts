import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { GoogleClock } from './google-clock.js';
import { compare, firstAfter } from './google-model.js';

/**
 * Paging as Google's list methods do it: an opaque `nextPageToken`, absent on the last page,
 * that carries on the walk it came from. A token here holds the key of the last item served
 * (keyset paging, so a page costs what it holds and a change between pages shifts nothing already
 * served), is signed, names the request it belongs to — path and every parameter but `pageToken`,
 * `maxResults` and the output ones — and is "only valid for three days" (users.list reference,
 * `pageToken`). Replayed with other parameters, altered, or older than that: refused.
 */

const THREE_DAYS_MS = 3 * 24 * 3600 * 1000;

/** Parameters that do not change which items a walk yields. */
const UNBOUND = new Set([
  'pageToken',
  'maxResults',
  'fields',
  'prettyPrint',
  'alt',
  'key',
  'quotaUser',
  'access_token',
]);

export class PageTokens {
  private readonly secret = randomBytes(32);

  constructor(
    private readonly clock: GoogleClock,
    readonly lifetimeMs = THREE_DAYS_MS,
  ) {}

  issue(url: URL, after: string): string {
    const payload = Buffer.from(JSON.stringify({ a: after, b: bindingOf(url), t: this.clock.now() }));
    return `${payload.toString('base64url')}.${this.mac(payload).toString('base64url')}`;
  }

  /** The position a token continues from; undefined when Google would refuse it. */
  read(url: URL, token: string): string | undefined {
    const [body, signature, ...rest] = token.split('.');
    if (body === undefined || signature === undefined || rest.length > 0) return undefined;
    const payload = Buffer.from(body, 'base64url');
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const { a, b, t } = JSON.parse(payload.toString('utf8')) as { a: string; b: string; t: number };
      if (b !== bindingOf(url) || this.clock.now() - t > this.lifetimeMs) return undefined;
      return a;
    } catch {
      return undefined;
    }
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, 18);
  }
}

function bindingOf(url: URL): string {
  const bound = [...url.searchParams]
    .filter(([name]) => !UNBOUND.has(name))
    .sort(([a], [b]) => compare(a, b));
  const text = `${url.pathname}?${new URLSearchParams(bound).toString()}`;
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

export interface Walked {
  ids: string[];
  /** The key to continue after, when further items match. */
  next?: string;
}

/**
 * One page of a sorted list: items after `after` (or before it, descending) that `accept` keeps,
 * at most `limit`, and whether any further one matches (looked for only as far as the first).
 */
export function walk(
  list: readonly string[],
  keyOf: (id: string) => string,
  options: { after?: string; descending?: boolean; limit: number; accept?: (id: string) => boolean },
): Walked {
  const { after, descending = false, limit, accept } = options;
  const step = descending ? -1 : 1;
  let index = after === undefined ? (descending ? list.length - 1 : 0) : firstAfter(list, after, keyOf);
  if (after !== undefined && descending) {
    index = firstAfter(list, after, keyOf) - 1;
    while (index >= 0 && keyOf(list[index] as string) === after) index--;
  }
  const ids: string[] = [];
  for (; index >= 0 && index < list.length; index += step) {
    const id = list[index] as string;
    if (accept && !accept(id)) continue;
    if (ids.length === limit) return { ids, next: keyOf(ids[ids.length - 1] as string) };
    ids.push(id);
  }
  return { ids };
}

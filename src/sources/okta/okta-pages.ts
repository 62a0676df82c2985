import { BridgeError, isBridgeError } from '../../domain/errors.js';
import type { OktaHttp, OktaPage } from './okta-http.js';

/**
 * Okta's lists, page by page: a page's `Link: <…>; rel="next"` names the next one (its `after`
 * cursor is opaque: the link is followed as given), until a page has none. A 429 is waited out
 * until the bucket's reset (the client's rate-limit state makes the next request wait) a few times
 * before the read fails `rate_limited`.
 */

export interface PageOptions {
  signal?: AbortSignal;
  /** 429s waited out per request before giving up. */
  rateLimitRetries?: number;
}

const RATE_LIMIT_RETRIES = 3;

/** Every page of the list at `path`, as its array of raw items; none when the list is gone (404). */
export async function* pagesOf(
  http: OktaHttp,
  path: string,
  options: PageOptions = {},
): AsyncGenerator<unknown[], void, undefined> {
  let next: string | undefined = path;
  while (next !== undefined) {
    const page = await getWaiting(http, next, options);
    if (!page) return;
    yield itemsOf(page, path);
    next = page.next;
  }
}

/** One GET that waits out Okta's rate limit (429, or a spent bucket) before trying again. */
export async function getWaiting(
  http: OktaHttp,
  path: string,
  options: PageOptions = {},
): Promise<OktaPage | undefined> {
  const retries = options.rateLimitRetries ?? RATE_LIMIT_RETRIES;
  for (let attempt = 0; ; attempt++) {
    try {
      return await http.get(path, options.signal);
    } catch (error) {
      if (!isBridgeError(error, 'rate_limited') || attempt >= retries) throw error;
    }
  }
}

export function itemsOf(page: OktaPage, path: string): unknown[] {
  if (Array.isArray(page.body)) return page.body as unknown[];
  const route = new URL(path, 'http://x').pathname;
  throw new BridgeError('source_invalid', `Okta GET ${route} answered with something other than a list`);
}

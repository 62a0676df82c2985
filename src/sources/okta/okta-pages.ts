import type { Answer } from '../../api-client/answer.js';
import type { ApiClient, RequestOptions } from '../../api-client/api-client.js';
import { linkPages, nextLink } from '../../api-client/paging/link-pages.js';
import { BridgeError } from '../../domain/errors.js';
import { RATE_LIMIT_WAITS } from './okta-http.js';

/**
 * Okta's lists, page by page (src/api-client/paging/link-pages.ts): a page's
 * `Link: <…>; rel="next"` names the next one (its `after` cursor is opaque: the link is followed as
 * given, on the org's origin only), until a page has none. Each request waits out a 429 until the
 * bucket's reset a few times, and retries a 5xx or a network error, before the read fails.
 */

export interface PageOptions {
  signal?: AbortSignal;
  /** 429s waited out per request before giving up. */
  rateLimitRetries?: number;
}

/** A page as the System Log poller reads it: its JSON body and its next link (a URL on the org). */
export interface OktaPage {
  body: unknown;
  next?: string;
}

/** Every page of the list at `path`, as its array of raw items; none when the list is gone (404). */
export async function* pagesOf(
  http: ApiClient,
  path: string,
  options: PageOptions = {},
): AsyncGenerator<unknown[], void, undefined> {
  for await (const answer of linkPages(http, path, { ...requestOptions(options), absentIsEmpty: true })) {
    yield itemsOf(answer);
  }
}

/** One page, its 429s waited out as a list read's are. */
export async function pageAt(
  http: ApiClient,
  pathOrNext: string,
  options: PageOptions = {},
): Promise<OktaPage> {
  const answer = await http.getJson(pathOrNext, requestOptions(options));
  const next = nextLink(http, answer);
  return { body: answer.body, ...(next ? { next: next.href } : {}) };
}

export function requestOptions(options: PageOptions): RequestOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    retry: { throttleWaits: options.rateLimitRetries ?? RATE_LIMIT_WAITS },
  };
}

export function itemsOf(answer: Answer): unknown[] {
  if (Array.isArray(answer.body)) return answer.body as unknown[];
  const route = answer.url.pathname;
  throw new BridgeError('source_invalid', `Okta GET ${route} answered with something other than a list`);
}

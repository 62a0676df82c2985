import { routeOf, type Answer } from '../answer.js';
import type { ApiClient, RequestOptions } from '../api-client.js';
import { linkTarget } from './link-header.js';
import { PageGuard } from './page-guard.js';

/**
 * The pages of a list whose answers name the next page in `Link: <…>; rel="next"` (RFC 8288), as
 * Okta's do: the link is followed as given (its cursor is opaque) and only on the client's origin,
 * until a page names none. Each page is yielded as its answer (the caller reads its items).
 */
export interface LinkPageOptions extends RequestOptions {
  /** A list that is gone (404/410) has no pages, instead of failing. */
  absentIsEmpty?: boolean;
  /** Pages read at most (the rest is left unread). */
  maxPages?: number;
}

export async function* linkPages(
  client: ApiClient,
  first: string,
  options: LinkPageOptions = {},
): AsyncGenerator<Answer, void, undefined> {
  const { absentIsEmpty, maxPages = Infinity, ...request } = options;
  let url: URL | undefined = client.url(first);
  const guard = new PageGuard(client.label, routeOf(url));
  for (let pages = 0; url !== undefined && pages < maxPages; pages++) {
    guard.next(url.href, 'the next link');
    const answer = absentIsEmpty ? await client.findJson(url, request) : await client.getJson(url, request);
    if (answer === undefined) return;
    yield answer;
    url = nextLink(client, answer);
  }
}

/** The `rel="next"` link of an answer, on the client's origin (`source_invalid` elsewhere). */
export function nextLink(client: ApiClient, answer: Answer): URL | undefined {
  const target = linkTarget(answer.headers.link, 'next');
  return target === undefined ? undefined : client.link(target, answer);
}

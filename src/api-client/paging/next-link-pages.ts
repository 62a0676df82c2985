import { routeOf, type Answer } from '../answer.js';
import type { ApiClient, RequestOptions } from '../api-client.js';
import { PageGuard } from './page-guard.js';

/**
 * The pages of a list whose bodies name the next page, as Microsoft Graph's do (OData JSON format
 * §4.5.5 and Graph's "Paging" and "delta query"): `value` holds the items, `@odata.nextLink` the
 * next page — followed verbatim (its `$skiptoken` is opaque) and only on the client's origin — and
 * the last page of a delta query carries `@odata.deltaLink` instead, the link of the next round.
 */
export interface NextLinkOptions extends RequestOptions {
  itemsField?: string;
  nextField?: string;
  deltaField?: string;
}

export interface NextLinkPage {
  items: unknown[];
  answer: Answer;
  /** On the last page of a delta query: where the next round starts (a URL on the origin). */
  deltaLink?: string;
}

export async function* nextLinkPages(
  client: ApiClient,
  first: string,
  options: NextLinkOptions = {},
): AsyncGenerator<NextLinkPage, void, undefined> {
  const { itemsField = 'value', nextField = '@odata.nextLink', deltaField = '@odata.deltaLink' } = options;
  let url: URL | undefined = client.url(first);
  const guard = new PageGuard(client.label, routeOf(url));
  while (url !== undefined) {
    guard.next(url.href, 'the next link');
    const answer = await client.getJson(url, options);
    const body = answer.body as Record<string, unknown>;
    const items = typeof body === 'object' && body !== null ? body[itemsField] : undefined;
    if (!Array.isArray(items)) throw guard.invalid(`the answer has no "${itemsField}" list`);
    const next = body[nextField];
    const delta = body[deltaField];
    url = typeof next === 'string' ? client.link(next, answer) : undefined;
    const deltaLink =
      url === undefined && typeof delta === 'string' ? client.link(delta, answer).href : undefined;
    yield { items: items as unknown[], answer, ...(deltaLink === undefined ? {} : { deltaLink }) };
  }
}

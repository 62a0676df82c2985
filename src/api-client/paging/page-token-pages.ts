import { routeOf } from '../answer.js';
import type { ApiClient, RequestOptions } from '../api-client.js';
import { PageGuard } from './page-guard.js';

/**
 * The pages of a list paged by token, as Google's APIs page (Admin SDK Directory API, e.g.
 * `users.list`): each answer's `nextPageToken` is sent back as the `pageToken` parameter of the
 * same request, until an answer has none. The items are under `itemsField` (`users`, `groups`,
 * `members`), which Google leaves out of an empty page.
 */
export interface PageTokenOptions extends RequestOptions {
  itemsField: string;
  tokenParam?: string;
  nextField?: string;
}

export async function* pageTokenPages(
  client: ApiClient,
  path: string,
  options: PageTokenOptions,
): AsyncGenerator<unknown[], void, undefined> {
  const { itemsField, tokenParam = 'pageToken', nextField = 'nextPageToken' } = options;
  let url = client.url(path);
  const guard = new PageGuard(client.label, routeOf(url));
  for (;;) {
    const body = (await client.getJson(url, options)).body as Record<string, unknown> | null;
    if (typeof body !== 'object' || body === null) throw guard.invalid('the answer is not an object');
    const items = body[itemsField] ?? [];
    if (!Array.isArray(items)) throw guard.invalid(`"${itemsField}" is not a list`);
    yield items as unknown[];
    const token = body[nextField];
    if (typeof token !== 'string' || token === '') return;
    guard.next(token, 'the page token');
    url = new URL(url);
    url.searchParams.set(tokenParam, token);
  }
}

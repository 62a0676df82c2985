import { z } from 'zod';
import { lookupAttribute } from '../../domain/scim-filter.js';
import { routeOf } from '../answer.js';
import type { ApiClient, RequestOptions } from '../api-client.js';
import { PageGuard } from './page-guard.js';

/**
 * The pages of a SCIM 2.0 list (RFC 7644 §3.4.2.4): `startIndex` (1-based) and `count`, each page
 * starting where the resources actually received end — a server may return fewer than `count` (a
 * page-size cap), so neither `count` nor `itemsPerPage` decides where the next page starts. The read
 * stops at `totalResults` (required, §3.4.2) or at an empty page. Guards, each `source_invalid`:
 * an empty first page that claims resources (read as "no users", it would deprovision everyone;
 * later pages may come up short when resources go during the read), and a page that holds only
 * resources already read on the first or the previous page (a server that ignores `startIndex`;
 * the ids of two pages are kept, whatever the size of the list). Attribute names are matched
 * case-insensitively (RFC 7643 §2.1).
 */
export interface ScimPageOptions extends RequestOptions {
  /** Resources asked per page. */
  count: number;
}

const listResponse = z.object({
  totalResults: z.number().int().min(0),
  Resources: z.array(z.unknown()).optional(),
});

export async function* scimPages(
  client: ApiClient,
  path: string,
  options: ScimPageOptions,
): AsyncGenerator<unknown[], void, undefined> {
  const guard = new PageGuard(client.label, routeOf(client.url(path)));
  let firstPage: ReadonlySet<unknown> = new Set();
  let previous: ReadonlySet<unknown> = new Set();
  for (let startIndex = 1; ;) {
    const url = client.url(path);
    url.searchParams.set('startIndex', String(startIndex));
    url.searchParams.set('count', String(options.count));
    const parsed = listResponse.safeParse(normalized((await client.getJson(url, options)).body));
    if (!parsed.success) throw guard.invalid('the answer is not a SCIM ListResponse');
    const resources = parsed.data.Resources ?? [];
    if (resources.length === 0) {
      if (startIndex === 1 && parsed.data.totalResults > 0)
        throw guard.invalid('totalResults > 0 but no Resources');
      return;
    }
    const ids = resources.map((r) => lookupAttribute(r, 'id')).filter((id) => typeof id === 'string');
    if (ids.length > 0 && (ids.every((id) => firstPage.has(id)) || ids.every((id) => previous.has(id)))) {
      throw guard.invalid(`the page at startIndex ${startIndex} repeats resources already read`);
    }
    previous = new Set(ids);
    if (startIndex === 1) firstPage = previous;
    yield resources;
    startIndex += resources.length;
    if (startIndex > parsed.data.totalResults) return;
  }
}

/** `totalResults` and `Resources` under any capitalisation. */
function normalized(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  return {
    totalResults: lookupAttribute(body, 'totalResults'),
    Resources: lookupAttribute(body, 'Resources'),
  };
}

import { BridgeError } from '../domain/errors.js';
import { collectGarbage } from '../ops/memory.js';
import type { IdentityKind } from '../domain/identity.js';
import type { RequestTrace } from './scim-http.js';
import type { PlatformClient } from './platform.client.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { ObservedUser } from '../domain/user-diff.js';

export interface ListOptions {
  /** Requested page size; the platform may return fewer per page (itemsPerPage rules). */
  pageSize: number;
  /** Pages requested at once (the client's own limit still applies). */
  concurrency: number;
  trace?: RequestTrace;
  onPage?: (pagesDone: number, pagesExpected: number) => void;
}

type Observed<K extends IdentityKind> = K extends 'user' ? ObservedUser : ObservedGroup;

/**
 * Lists every resource of a kind by startIndex (RFC 7644 §3.4.2.4). The first page tells the total
 * and the page size the platform really uses — never assumed to be the requested count; the other
 * pages are then fetched concurrently. A page shorter than expected (the set changed meanwhile)
 * is followed by a request for the gap, so nothing is skipped; duplicates are dropped by id.
 * Each resource is kept compact (what a sync compares), as a listing may hold 100,000.
 */
export async function listAll<K extends IdentityKind>(
  client: PlatformClient,
  kind: K,
  options: ListOptions,
): Promise<Observed<K>[]> {
  const found = new Map<string, Observed<K>>();
  const keep = (r: Observed<K>) => found.set(r.id, r);
  const first = await client.listPage(kind, 1, options.pageSize, options.trace);
  first.resources.forEach(keep);
  const total = first.totalResults;
  const step = first.resources.length;
  if (step === 0) {
    if (total > 0)
      throw new BridgeError(
        'target_bad_response',
        `The platform reports ${total} ${kind}s but returned none`,
      );
    return [];
  }
  const starts: number[] = [];
  for (let start = 1 + step; start <= total; start += step) starts.push(start);
  let done = 1;
  const expected = 1 + starts.length;
  options.onPage?.(done, expected);
  const worker = async () => {
    for (let start = starts.shift(); start !== undefined; start = starts.shift()) {
      const page = await client.listPage(kind, start, options.pageSize, options.trace);
      page.resources.forEach(keep);
      const next = start + page.resources.length;
      if (
        page.resources.length > 0 &&
        page.resources.length < step &&
        next <= Math.min(total, start + step - 1)
      ) {
        starts.push(next);
      }
      options.onPage?.(++done, expected);
      if (done % 200 === 0) collectGarbage();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return [...found.values()];
}

import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import type { RequestTrace } from './scim-http.js';
import type { PlatformClient } from './platform.client.js';
import type { ObservedGroup } from '../domain/group-diff.js';
import type { ObservedUser } from '../domain/user-diff.js';

export interface ListOptions<K extends IdentityKind> {
  /** Requested page size; the platform may return fewer per page (itemsPerPage rules). */
  pageSize: number;
  /** Pages requested at once (the client's own limit and the shared rate gate still apply). */
  concurrency: number;
  trace?: RequestTrace;
  /**
   * Takes each page's resources, compact (what a sync compares). Each worker has asked for its
   * next page meanwhile, so that at most twice `concurrency` pages are held at once; may throw to
   * stop the listing (a cancel), once the requests in flight are answered.
   */
  onResources: (resources: Observed<K>[]) => Promise<void>;
  onPage?: (pagesDone: number, pagesExpected: number) => void;
}

export type Observed<K extends IdentityKind> = K extends 'user' ? ObservedUser : ObservedGroup;

/**
 * Lists every resource of a kind by startIndex (RFC 7644 §3.4.2.4), page by page into
 * `onResources`, never holding the listing. The first page tells the total and the page size the
 * platform really uses — never assumed to be the requested count; the other pages are then fetched
 * concurrently. A page shorter than expected (the set changed meanwhile) is followed by a request
 * for the gap, so nothing is skipped (a resource may then come twice: the receiver keys by id).
 * Returns the number of pages read.
 */
export async function listPages<K extends IdentityKind>(
  client: PlatformClient,
  kind: K,
  options: ListOptions<K>,
): Promise<number> {
  const first = await client.listPage(kind, 1, options.pageSize, options.trace);
  await options.onResources(first.resources as Observed<K>[]);
  const total = first.totalResults;
  const step = first.resources.length;
  if (step === 0) {
    if (total > 0)
      throw new BridgeError(
        'target_bad_response',
        `The platform reports ${total} ${kind}s but returned none`,
      );
    return 1;
  }
  const starts: number[] = [];
  for (let start = 1 + step; start <= total; start += step) starts.push(start);
  let done = 1;
  const expected = 1 + starts.length;
  options.onPage?.(done, expected);
  let failed: unknown;
  const ask = asker(client, kind, options, { starts, step, total, stopped: () => failed !== undefined });
  // Each worker asks for its next page before it hands over the one it has, so the requests never
  // wait on what the caller does with a page (a sync indexes it in Redis): two pages a worker at most.
  const worker = async () => {
    for (let asking = ask(); asking !== undefined;) {
      const page = await asking;
      asking = ask();
      try {
        await options.onResources(page.resources as Observed<K>[]);
      } catch (error) {
        await asking?.catch(() => undefined);
        throw error;
      }
      done++;
      options.onPage?.(done, expected);
    }
  };
  const workers = Array.from({ length: Math.max(1, options.concurrency) }, () =>
    worker().catch((error: unknown) => {
      failed ??= error;
    }),
  );
  await Promise.all(workers);
  if (failed !== undefined) throw failed;
  return done;
}

/**
 * Asks for the next page to list, if any (none once the listing stopped). A page shorter than the
 * first, ending before the next page's start, leaves a gap: its start is listed again.
 */
function asker<K extends IdentityKind>(
  client: PlatformClient,
  kind: K,
  options: ListOptions<K>,
  pages: { starts: number[]; step: number; total: number; stopped: () => boolean },
) {
  const { starts, step, total } = pages;
  return () => {
    const start = pages.stopped() ? undefined : starts.shift();
    if (start === undefined) return undefined;
    const asked = client.listPage(kind, start, options.pageSize, options.trace).then((page) => {
      const next = start + page.resources.length;
      const short = page.resources.length > 0 && page.resources.length < step;
      if (short && next <= Math.min(total, start + step - 1)) starts.push(next);
      return page;
    });
    asked.catch(() => undefined);
    return asked;
  };
}

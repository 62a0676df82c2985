import { header, type Answer } from '../../../api-client/answer.js';
import { BridgeError, isBridgeError } from '../../../domain/errors.js';
import type { GoogleApi } from './google-api.js';

/**
 * A Google list walked whole, or not at all (SPEC §5.5: "a read is whole or it is nothing"). Google
 * pages by an opaque `nextPageToken` and leaves the list key out of an empty answer (users,
 * groups, members, items); a wrong answer that is a 200 must not pass for the end of a list:
 *
 * - a page without its list key is believed only as the first and last page of a list that may
 *   be empty, and only as the walk says: `never` (users: the administrator acted for is one, so
 *   the list is never empty), `again` (asked once more, and the second answer taken: the groups),
 *   `expected` (a group's members that groups.list counted: asked once more, and empty twice fails);
 * - a last page that is full may be a walk cut short (a `nextPageToken` lost, idp-scim-sync #70):
 *   the page is asked again one item shorter, which must then give a token, and the page after it
 *   must hold nothing the full page did not — otherwise the list went on and the read fails;
 * - a page token Google refuses (they last three days, and are bound to their query) fails it.
 *
 * Every failure is a BridgeError `source_invalid` that names the list; nothing is deprovisioned
 * by a read that fails (the sync fails).
 */

export interface ListWalk {
  /** The list's path and parameters, without `maxResults` and `pageToken`. */
  path: string;
  params: Readonly<Record<string, string | undefined>>;
  itemsKey: string;
  pageSize: number;
  /** What an answer without the list key on the first page means (see above). */
  empty: 'never' | 'again' | 'expected' | 'allowed';
  /** The item's identity, to compare pages (an id). */
  idOf: (item: unknown) => string | undefined;
  signal?: AbortSignal;
}

export interface Page {
  items: unknown[];
  answer: Answer;
}

export async function* walkList(api: GoogleApi, walk: ListWalk): AsyncGenerator<Page, void, undefined> {
  const seen = new Set<string>();
  let token: string | undefined;
  for (let first = true; ; first = false) {
    let page = await readPage(api, walk, token, walk.pageSize);
    if (page.items === undefined || (first && page.items.length === 0 && page.next === undefined)) {
      if (!first || page.next !== undefined) throw api.invalid(page.url, `a page without "${walk.itemsKey}"`);
      const again = await emptyList(api, walk, page.url);
      if (again === undefined) return;
      page = again;
    }
    const items = page.items ?? [];
    if (page.next === undefined) {
      if (items.length >= walk.pageSize) await confirmEnd(api, walk, token, items);
      yield { items, answer: page.answer };
      return;
    }
    if (seen.has(page.next)) throw api.invalid(page.url, 'the page token repeats one already followed');
    seen.add(page.next);
    yield { items, answer: page.answer };
    token = page.next;
  }
}

interface RawPage {
  url: URL;
  answer: Answer;
  items: unknown[] | undefined;
  next: string | undefined;
}

async function readPage(api: GoogleApi, walk: ListWalk, token: string | undefined, size: number) {
  const url = api.url(walk.path, { ...walk.params, maxResults: String(size), pageToken: token });
  let answer: Answer;
  try {
    answer = await api.get(url, walk.signal);
  } catch (error) {
    if (token !== undefined && isBridgeError(error, 'source_invalid') && error.status === 400) {
      const message = `${api.label} refused a page token of ${url.pathname} (a token lasts three days): the read is abandoned`;
      throw new BridgeError('source_invalid', message, { status: 400, cause: error });
    }
    throw error;
  }
  const body = answer.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw api.invalid(url, 'the answer is not a JSON object');
  const record = body as Record<string, unknown>;
  const items = record[walk.itemsKey];
  if (items !== undefined && !Array.isArray(items))
    throw api.invalid(url, `"${walk.itemsKey}" is not a list`);
  const next = record.nextPageToken;
  return {
    url,
    answer,
    items,
    next: typeof next === 'string' && next !== '' ? next : undefined,
  } satisfies RawPage;
}

/**
 * A first page without its list: undefined when the walk believes the list empty; otherwise the
 * first page asked again, taken in its place when it has its list (a lost key is a transient fault).
 */
async function emptyList(api: GoogleApi, walk: ListWalk, url: URL): Promise<RawPage | undefined> {
  if (walk.empty === 'allowed') return undefined;
  const why = `answered 200 without "${walk.itemsKey}"`;
  if (walk.empty === 'never')
    throw api.invalid(url, `${why}, although the list cannot be empty: the read is abandoned`);
  const again = await readPage(api, walk, undefined, walk.pageSize);
  if (again.items !== undefined && again.items.length > 0) return again;
  if (walk.empty === 'again') return undefined;
  throw api.invalid(url, `${why} twice, although the group has direct members: the read is abandoned`);
}

/**
 * A full last page: the same page asked one item shorter must give a token, and what follows it
 * must be what the full page held (a list that ended exactly there), nothing more.
 */
async function confirmEnd(
  api: GoogleApi,
  walk: ListWalk,
  token: string | undefined,
  items: readonly unknown[],
): Promise<void> {
  const held = new Set(items.map(walk.idOf));
  const shorter = await readPage(api, walk, token, walk.pageSize - 1);
  const after =
    shorter.next === undefined ? undefined : await readPage(api, walk, shorter.next, walk.pageSize);
  const more =
    after === undefined ||
    after.next !== undefined ||
    (after.items ?? []).some((item) => !held.has(walk.idOf(item)));
  if (more)
    throw api.invalid(
      shorter.url,
      'a page walk ended early (a page without the token of the next): the read is abandoned',
    );
}

/** The time of an answer on Google's clock (its `Date` header, to the second), if it says. */
export function answerTime(answer: Answer): number | undefined {
  const date = header(answer.headers, 'date');
  const ms = date === undefined ? NaN : Date.parse(date);
  return Number.isNaN(ms) ? undefined : ms;
}

/** An item's `id` field. */
export function idField(item: unknown): string | undefined {
  const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

import type { ListedResource } from '../store/sync-listing.store.js';

/** Chunks read ahead of the one being decided. */
export const READ_AHEAD = 2;

/** The claims of the chunks decided while the current one was being read (READ_AHEAD of them). */
export class RecentClaims {
  private readonly chunks: Set<string>[] = [];

  push(claims: Set<string>): void {
    this.chunks.push(claims);
    if (this.chunks.length > READ_AHEAD) this.chunks.shift();
  }

  all(): Set<string> {
    return new Set(this.chunks.flatMap((claims) => [...claims]));
  }
}

/**
 * The resources matched so far that Redis may not show as claimed yet: this chunk's, and those of
 * the chunks decided after this one was read (their claims were written after).
 */
export class Claims {
  readonly taken: Set<string>;
  private readonly preclaimed = new Set<string>();

  constructor(private readonly previous: ReadonlySet<string>) {
    this.taken = new Set(previous);
  }

  /**
   * The candidates to match from: a match the look-up claimed stands unless this process took
   * that resource already (then the look-up's other candidates are read).
   */
  async usable(
    listed: (ListedResource | undefined)[] | undefined,
    more: () => Promise<(ListedResource | undefined)[]>,
  ): Promise<(ListedResource | undefined)[]> {
    const first = listed?.[0];
    if (!first?.preclaimed) return listed ?? [];
    if (this.taken.has(first.resource.id)) return more();
    this.preclaimed.add(first.resource.id);
    return [first];
  }

  /** Whether a candidate may still be matched: listed, not claimed, not taken by this process. */
  free(candidate: ListedResource | undefined): candidate is ListedResource {
    return candidate !== undefined && !candidate.claimed && !this.taken.has(candidate.resource.id);
  }

  /** Claims Redis does not hold yet. */
  toWrite(): string[] {
    return [...this.taken].filter((id) => !this.previous.has(id) && !this.preclaimed.has(id));
  }

  mine(): Set<string> {
    return new Set([...this.taken].filter((id) => !this.previous.has(id)));
  }
}

/**
 * Handles chunks in order, reading the next ones while the current one is handled: Redis works on
 * the reads while the process decides, instead of each waiting for the other.
 */
export async function prefetching<F>(
  chunks: AsyncIterable<string[]>,
  fetch: (ids: string[]) => Promise<F>,
  handle: (fetched: F) => Promise<void>,
): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  let reading: Promise<unknown> = Promise.resolve();
  const start = () => {
    // The ids of each chunk are taken in order; their reads then overlap.
    const next = reading.then(() => iterator.next());
    reading = next;
    const fetched = next.then((n) => (n.done === true ? undefined : fetch(n.value)));
    // Not awaited until its turn: a failure then is the one thrown (handle's own first).
    fetched.catch(() => undefined);
    return fetched;
  };
  const ahead = Array.from({ length: READ_AHEAD }, start);
  for (;;) {
    const current = await ahead.shift();
    if (current === undefined) return;
    ahead.push(start());
    await handle(current);
  }
}

/**
 * A Lua script holds Redis for every other client while it runs — SCIM pushes, webhooks, the
 * workers, other processes — so no call may carry a whole batch of a full sync: at a million
 * identities that held Redis for 40–170 ms a call. A batch is cut into slices a call each, sent at
 * once: Redis runs them in order (one connection, one slot) with other clients' commands between
 * them, and the batch still costs one round trip. A slice's weight is about the Redis commands its
 * script runs; SLICE_WEIGHT of them take 1–5 ms of Redis on a 2-core machine.
 */
export const SLICE_WEIGHT = 1000;

/** Cuts `items` into slices whose weights add up to at most `budget` (an item heavier alone is a slice). */
export function slices<T>(items: readonly T[], weight: (item: T) => number, budget = SLICE_WEIGHT): T[][] {
  const out: T[][] = [];
  let slice: T[] = [];
  let used = 0;
  for (const item of items) {
    const w = Math.max(1, weight(item));
    if (slice.length > 0 && used + w > budget) {
      out.push(slice);
      slice = [];
      used = 0;
    }
    slice.push(item);
    used += w;
  }
  if (slice.length > 0) out.push(slice);
  return out;
}

/**
 * Runs `call` on each slice of `items` (all sent at once) and gives the replies in the items'
 * order: `call` returns one reply per item of its slice.
 */
export async function inSlices<T, R>(
  items: readonly T[],
  weight: (item: T) => number,
  call: (slice: readonly T[]) => Promise<readonly R[]>,
  budget = SLICE_WEIGHT,
): Promise<R[]> {
  const replies = await Promise.all(slices(items, weight, budget).map((slice) => call(slice)));
  return replies.flat();
}

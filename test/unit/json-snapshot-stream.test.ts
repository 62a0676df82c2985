import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { MAX_SNAPSHOT_ITEM_BYTES } from '../../src/domain/snapshot-ndjson.js';
import { readJsonSnapshot } from '../../src/sources/directory/file/json-snapshot-stream.js';

// Pure: the JSON snapshot reader on streams made in memory (issue 23, item 9). One very large item
// fed in many small chunks is gathered with copies linear in its size — counted in bytes, never
// timed — and an item over the bound one NDJSON line has is refused, naming it, before the rest of
// it is read.

/** The document's bytes in chunks of `size`, the filler of `fill` bytes in the middle made lazily. */
async function* stream(head: string, fill: number, tail: string, size: number, sent = { bytes: 0 }) {
  const send = (chunk: Buffer) => {
    sent.bytes += chunk.length;
    return chunk;
  };
  for (let at = 0; at < head.length; at += size) yield send(Buffer.from(head.slice(at, at + size)));
  const filler = Buffer.alloc(size, 'a');
  for (let left = fill; left > 0; left -= size) yield send(left >= size ? filler : filler.subarray(0, left));
  for (let at = 0; at < tail.length; at += size) yield send(Buffer.from(tail.slice(at, at + size)));
}

const HEAD = '{"groups": [], "users": [{"id": "u-1", "userName": "a@example.com"}, ';
const BIG = '{"id": "u-2", "userName": "b@example.com", "title": "';
const TAIL = '"}]}';

async function read(chunks: AsyncIterable<Buffer>, options: Parameters<typeof readJsonSnapshot>[2] = {}) {
  const users: unknown[] = [];
  const problems: string[] = [];
  await readJsonSnapshot(
    chunks,
    {
      items: async (kind, items) => {
        if (kind === 'users') users.push(...items);
      },
      problem: (path, reason) => problems.push(`${path.join('.')}: ${reason}`),
    },
    options,
  );
  return { users, problems };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the read to fail');
}

describe('the JSON snapshot reader on one very large item', () => {
  it('gathers an item spanning 4,096 chunks with copies linear in its size', async () => {
    const fill = 1 << 20;
    const stats = { copiedBytes: 0 };
    const { users, problems } = await read(stream(HEAD + BIG, fill, TAIL, 256), { stats });
    expect(problems).toEqual([]);
    expect(users).toHaveLength(2);
    expect((users[1] as { title: string }).title).toHaveLength(fill);
    const item = BIG.length + fill + 2;
    // Each byte of the item is copied in once, and moved at most about as often again by the
    // doublings: a bound in its size (a copy of all kept so far per chunk would be ~2,000 times it).
    expect(stats.copiedBytes).toBeGreaterThanOrEqual(fill);
    expect(stats.copiedBytes).toBeLessThan(3 * item);
  });

  it('refuses an item over the bound of one NDJSON line, naming it, and reads no further', async () => {
    expect(MAX_SNAPSHOT_ITEM_BYTES).toBe(64 << 20);
    const chunk = 1 << 20;
    const sent = { bytes: 0 };
    const error = await failure(
      read(stream(HEAD + BIG, MAX_SNAPSHOT_ITEM_BYTES + 4 * chunk, TAIL, chunk, sent)),
    );
    expect(isBridgeError(error, 'invalid_input')).toBe(true);
    expect((error as { problems: string[] }).problems).toEqual([
      `users[1]: larger than ${MAX_SNAPSHOT_ITEM_BYTES} bytes, the most one item may take`,
    ]);
    expect(sent.bytes).toBeLessThanOrEqual(MAX_SNAPSHOT_ITEM_BYTES + 2 * chunk);
  });

  it('takes an item up to the bound and refuses one byte more', async () => {
    const item = (fill: number) => BIG.length + fill + 2;
    const maxItemBytes = item(1000);
    expect((await read(stream(HEAD + BIG, 1000, TAIL, 7), { maxItemBytes })).users).toHaveLength(2);
    const over = await failure(read(stream(HEAD + BIG, 1001, TAIL, 7), { maxItemBytes }));
    expect((over as { problems: string[] }).problems).toEqual([
      `users[1]: larger than ${maxItemBytes} bytes, the most one item may take`,
    ]);
  });
});

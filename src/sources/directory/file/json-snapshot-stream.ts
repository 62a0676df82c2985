import { BridgeError } from '../../../domain/errors.js';
import type { SnapshotKind } from '../../../domain/snapshot-ledger.js';
import { MAX_SNAPSHOT_ITEM_BYTES } from '../../../domain/snapshot-ndjson.js';
import type { ProblemPath } from '../../../domain/snapshot-problems.js';
import { SOURCE_BATCH } from '../../../domain/snapshot-sink.js';
import {
  ByteWindow,
  JsonSyntaxError,
  newScan,
  scanValue,
  ValueTooLarge,
  type ScanState,
} from './json-byte-window.js';

export { JsonSyntaxError } from './json-byte-window.js';

/**
 * Reads a JSON snapshot document (SPEC §5.4) from a byte stream, item by item: the top-level
 * object is scanned for its `users` and `groups` arrays (in any order, other members skipped), and
 * each element is cut out, parsed on its own and handed over in batches — an element may span any
 * number of chunks. Memory stays at a batch of items and the chunk being read, whatever the size.
 *
 * The scanner only finds where values start and end (strings and nesting); JSON.parse checks each
 * element, so malformed JSON is still refused, named by where it was found (`users[3]: …`, or the
 * byte, line and column). A document whose top level is not an object is reported as the problem
 * `snapshot: not an object` when it is JSON (read whole up to 1 MiB: beyond, it is not parsed).
 *
 * One item may take MAX_SNAPSHOT_ITEM_BYTES, as one NDJSON line may: a larger one is refused
 * (`invalid_input`, naming it: `users[3]: larger than … bytes`) before more of it is read. An item
 * spanning many chunks is gathered with copies linear in its size (json-byte-window.ts).
 */

export interface JsonReadOptions {
  /** The most bytes one item may take; MAX_SNAPSHOT_ITEM_BYTES by default. */
  maxItemBytes?: number;
  /** Filled in as the document is read: the bytes copied to gather items that span chunks. */
  stats?: { copiedBytes: number };
}

export interface JsonSnapshotHandler {
  items(kind: SnapshotKind, items: unknown[]): Promise<void>;
  problem(path: ProblemPath, reason: string): void;
}

const LISTS: readonly SnapshotKind[] = ['users', 'groups'];
const WHOLE_LIMIT = 1 << 20;

export async function readJsonSnapshot(
  chunks: AsyncIterable<Buffer>,
  handler: JsonSnapshotHandler,
  options: JsonReadOptions = {},
): Promise<void> {
  const window = new ByteWindow(
    chunks[Symbol.asyncIterator](),
    options.maxItemBytes ?? MAX_SNAPSHOT_ITEM_BYTES,
  );
  try {
    await readDocument(window, handler);
  } finally {
    if (options.stats) options.stats.copiedBytes = window.copiedBytes;
  }
}

async function readDocument(window: ByteWindow, handler: JsonSnapshotHandler): Promise<void> {
  await window.skipByteOrderMark();
  const first = await window.peek();
  if (first === undefined) throw window.syntax('the file is empty');
  if (first !== 0x7b /* { */) return notAnObject(window, handler);
  const seen = new Set<string>();
  await members(window, async (key) => {
    const kind = LISTS.find((k) => k === key);
    if (kind === undefined) return skip(window);
    if (seen.has(kind)) throw window.syntax(`"${kind}" appears twice`);
    seen.add(kind);
    if ((await window.peek()) !== 0x5b /* [ */) {
      await skip(window);
      return handler.problem([kind], 'not an array');
    }
    await elements(window, kind, handler);
  });
  if ((await window.peek()) !== undefined) throw window.unexpected('the end of the file');
  for (const kind of LISTS) if (!seen.has(kind)) handler.problem([kind], 'required');
}

/** Walks the members of the object at the cursor; `onMember` leaves the cursor after the value. */
async function members(window: ByteWindow, onMember: (key: string) => Promise<void>): Promise<void> {
  window.at++;
  if ((await window.peek()) === 0x7d /* } */) return void window.at++;
  for (;;) {
    if ((await window.peek()) !== 0x22 /* " */) throw window.unexpected('a member name');
    const key = JSON.parse(await cut(window, 'snapshot (a member name)')) as string;
    if ((await window.peek()) !== 0x3a /* : */) throw window.unexpected('":"');
    window.at++;
    if ((await window.peek()) === undefined) throw window.unexpected('a value');
    await onMember(key);
    const next = await window.peek();
    if (next === 0x7d) return void window.at++;
    if (next !== 0x2c /* , */) throw window.unexpected('"," or "}"');
    window.at++;
  }
}

/** Parses each element of the array at the cursor and hands them over in batches. */
async function elements(window: ByteWindow, kind: SnapshotKind, handler: JsonSnapshotHandler): Promise<void> {
  window.at++;
  let batch: unknown[] = [];
  if ((await window.peek()) === 0x5d /* ] */) {
    window.at++;
    return;
  }
  for (let index = 0; ; index++) {
    if ((await window.peek()) === undefined) throw window.syntax('the file ends inside an array');
    const start = window.position(window.at);
    const text = await cut(window, `${kind}[${index}]`);
    try {
      batch.push(JSON.parse(text) as unknown);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new JsonSyntaxError(`${kind}[${index}]: ${reason}`, start, text);
    }
    if (batch.length >= SOURCE_BATCH) {
      await handler.items(kind, batch);
      batch = [];
    }
    const next = await window.peek();
    if (next === 0x5d) break;
    if (next !== 0x2c) throw window.unexpected('"," or "]"');
    window.at++;
  }
  window.at++;
  if (batch.length > 0) await handler.items(kind, batch);
}

/** The text of the value at the cursor (`what` names it), which is moved past it. */
async function cut(window: ByteWindow, what: string): Promise<string> {
  window.mark = window.at;
  try {
    await scanOver(window, newScan(window.buf[window.at] ?? 0));
  } catch (error) {
    if (error instanceof ValueTooLarge) throw tooLarge(what, error.maxBytes);
    throw error;
  }
  return window.buf.toString('utf8', window.mark, window.at);
}

/** As an NDJSON line over the same bound is refused (text-lines.ts). */
function tooLarge(what: string, maxBytes: number): BridgeError {
  const problem = `${what}: larger than ${maxBytes} bytes, the most one item may take`;
  return new BridgeError('invalid_input', `The snapshot's ${problem}`, { status: 400, problems: [problem] });
}

/** Moves past the value at the cursor without keeping it. */
async function skip(window: ByteWindow): Promise<void> {
  window.mark = -1;
  await scanOver(window, newScan(window.buf[window.at] ?? 0));
}

async function scanOver(window: ByteWindow, state: ScanState): Promise<void> {
  for (;;) {
    const end = scanValue(window.buf, window.at, state);
    window.checkKept(end === -1 ? window.buf.length : end);
    if (end !== -1) {
      window.at = end;
      return;
    }
    window.at = window.buf.length;
    if (!(await window.more())) {
      if (state.scalar) return;
      throw window.syntax(state.inString ? 'the file ends inside a string' : 'the file ends inside a value');
    }
  }
}

/** A top level that is not an object: `snapshot: not an object` if it is JSON at all. */
async function notAnObject(window: ByteWindow, handler: JsonSnapshotHandler): Promise<void> {
  window.mark = 0;
  while (window.buf.length <= WHOLE_LIMIT && (await window.more()));
  if (window.buf.length <= WHOLE_LIMIT) {
    const text = window.buf.toString('utf8');
    try {
      JSON.parse(text);
    } catch (error) {
      throw new JsonSyntaxError(error instanceof Error ? error.message : String(error), window.position(0));
    }
  }
  handler.problem([], 'not an object');
}

import { isUtf8 } from 'node:buffer';
import { BridgeError } from './errors.js';
import type { SnapshotKind } from './snapshot-ledger.js';
import { SOURCE_BATCH, type SnapshotSink } from './snapshot-sink.js';
import type { ItemOrigin } from './snapshot-validator.js';
import type { TextLine } from './text-lines.js';

/**
 * A snapshot as NDJSON (SPEC §5.4: large ones, one item per line): each line is one JSON object,
 * `{"user": {…}}` or `{"group": {…}}`, in any order; blank lines are skipped. A request body may
 * begin with one line of options, `{"options": {"dryRun": …, "allowEmpty": …}}`. A line that is not
 * one of these is refused naming it (`line 12: …`), as a problem list of one.
 */

/**
 * The most bytes one snapshot item may take: one NDJSON line, or one element of a JSON snapshot's
 * `users` / `groups` read as a stream. A group of about 100,000 members fits.
 */
export const MAX_SNAPSHOT_ITEM_BYTES = 64 << 20;

export type NdjsonEntry =
  | { type: 'item'; kind: SnapshotKind; item: unknown; line: number }
  | { type: 'options'; options: unknown; line: number };

const KINDS: Readonly<Record<string, SnapshotKind>> = { user: 'users', group: 'groups' };

/** The entry a line holds, or undefined for a blank line. Throws `invalid_input` naming the line. */
export function decodeSnapshotLine(bytes: Buffer, line: number): NdjsonEntry | undefined {
  if (!isUtf8(bytes)) throw lineError(line, 'not UTF-8');
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw lineError(line, `not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const keys = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
  const [key] = keys;
  const content = key === undefined ? undefined : (value as Record<string, unknown>)[key];
  if (keys.length === 1 && key === 'options') return { type: 'options', options: content, line };
  const kind = keys.length === 1 && key !== undefined && Object.hasOwn(KINDS, key) ? KINDS[key] : undefined;
  if (kind === undefined) throw lineError(line, 'expected {"user": {…}} or {"group": {…}}');
  return { type: 'item', kind, item: content, line };
}

/** A line the snapshot cannot hold: `invalid_input`, status 400, the line named. */
export function lineError(line: number, reason: string): BridgeError {
  return new BridgeError('invalid_input', `Invalid snapshot: line ${line}: ${reason}`, {
    status: 400,
    problems: [`line ${line}: ${reason}`],
  });
}

/** Whether a text's first line looks like NDJSON of a snapshot rather than a JSON snapshot document. */
export function looksLikeNdjson(firstLine: string): boolean {
  try {
    const value = JSON.parse(firstLine) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    return keys.length === 1 && ['user', 'group', 'options'].includes(keys[0] ?? '');
  } catch {
    return false;
  }
}

/**
 * Hands the items of NDJSON lines to a sink, a batch at a time in line order (a batch ends where
 * the kind changes). The options line, when `onOptions` takes one, may only come first.
 */
export async function feedNdjson(
  lines: AsyncIterable<readonly TextLine[]>,
  sink: Pick<SnapshotSink, 'add'>,
  onOptions?: (options: unknown, line: number) => void,
): Promise<void> {
  let kind: SnapshotKind | undefined;
  let items: unknown[] = [];
  let origins: ItemOrigin[] = [];
  let first = true;
  const flush = async () => {
    if (kind !== undefined && items.length > 0) await sink.add(kind, items, origins);
    items = [];
    origins = [];
  };
  for await (const batch of lines) {
    for (const { number, bytes } of batch) {
      const entry = decodeSnapshotLine(bytes, number);
      if (entry === undefined) continue;
      if (entry.type === 'options') {
        if (!first || onOptions === undefined) throw lineError(number, OPTIONS_PLACE);
        onOptions(entry.options, number);
      } else {
        if (entry.kind !== kind || items.length >= SOURCE_BATCH) await flush();
        kind = entry.kind;
        items.push(entry.item);
        origins.push({ line: number });
      }
      first = false;
    }
  }
  await flush();
}

const OPTIONS_PLACE = 'an {"options": …} line may only be the first line of a POST /admin/sync body';

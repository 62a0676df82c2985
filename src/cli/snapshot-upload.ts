import { open } from 'node:fs/promises';
import { looksLikeNdjson, MAX_SNAPSHOT_ITEM_BYTES } from '../domain/snapshot-ndjson.js';
import { splitLines } from '../domain/text-lines.js';
import type { ProblemPath } from '../domain/snapshot-problems.js';
import { formatPath } from '../domain/snapshot-problems.js';
import { JsonSyntaxError, readJsonSnapshot } from '../sources/directory/file/json-snapshot-stream.js';
import { snapshotFileFormat } from '../sources/directory/file/file.source.js';
import { CliError, fileUnreadable } from './cli-error.js';
import { jsonSyntaxError } from './json-position.js';

/**
 * `scim-bridge sync --snapshot FILE` as a stream: the file — a JSON snapshot document or NDJSON, by
 * extension or content (sources/directory/file/file.source.ts) — is sent to POST /admin/sync as NDJSON
 * without ever being read whole: the first line carries the options, then one item per line. A
 * JSON document is cut into its items as it is read (json-snapshot-stream.ts); an NDJSON file's
 * lines pass through, its own options line (if any) under the command's flags.
 */

export interface UploadOptions {
  dryRun: boolean;
  allowEmpty: boolean;
  linkOnly?: boolean;
}

const SNAPSHOT_FORM =
  'a snapshot is {"users": [...], "groups": [...]}, or NDJSON: one {"user": …} or {"group": …} per line';

export interface SnapshotUpload {
  format: 'json' | 'ndjson';
  body: AsyncIterable<string | Buffer>;
  /** Lines the upload put before the file's own (its options line, when the file has none). */
  linesAdded(): number;
}

export async function snapshotUpload(path: string, options: UploadOptions): Promise<SnapshotUpload> {
  // Opened before anything is sent: an unreadable file is said so, and no request is made.
  const [format, file] = await Promise.all([snapshotFileFormat(path), open(path, 'r')]).catch(
    (error: unknown) => {
      throw fileUnreadable(path, error);
    },
  );
  const chunks = () => file.createReadStream();
  const first = JSON.stringify({ options }) + '\n';
  const numbering = { added: 0 };
  const body =
    format === 'ndjson' ? ndjsonBody(chunks(), options, numbering) : jsonBody(path, chunks(), first);
  return { format, body: guardReads(path, body), linesAdded: () => numbering.added };
}

/** The file's lines, after the command's options line (an options line of the file's own is merged). */
async function* ndjsonBody(
  chunks: AsyncIterable<Buffer>,
  options: UploadOptions,
  numbering: { added: number },
) {
  let first = true;
  for await (const lines of splitLines(chunks, MAX_SNAPSHOT_ITEM_BYTES)) {
    const out: Buffer[] = [];
    for (const line of lines) {
      if (first) {
        first = false;
        const text = line.bytes.toString('utf8');
        const own = optionsOf(text);
        if (own !== undefined) {
          yield JSON.stringify({ options: { ...own, ...definedFlags(options) } }) + '\n';
          continue;
        }
        numbering.added = 1;
        yield JSON.stringify({ options }) + '\n';
      }
      out.push(line.bytes, NEWLINE);
    }
    if (out.length > 0) yield Buffer.concat(out);
  }
  if (first) yield JSON.stringify({ options }) + '\n';
}

const NEWLINE = Buffer.from('\n');

/** The options of an NDJSON options line (`{"options": {…}}`, its only key), else undefined. */
function optionsOf(text: string): Record<string, unknown> | undefined {
  if (!looksLikeNdjson(text)) return undefined;
  const line = JSON.parse(text) as Record<string, unknown>;
  if (!Object.hasOwn(line, 'options')) return undefined;
  const options = line.options;
  return typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {};
}

/** Only the flags given: each defaults to false and then leaves the file's own. */
function definedFlags(options: UploadOptions): Partial<UploadOptions> {
  return {
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.allowEmpty ? { allowEmpty: true } : {}),
    ...(options.linkOnly ? { linkOnly: true } : {}),
  };
}

/** A JSON snapshot document as NDJSON lines, item by item; a document that is no snapshot stops the upload. */
async function* jsonBody(path: string, chunks: AsyncIterable<Buffer>, first: string): AsyncGenerator<string> {
  yield first;
  const problems: string[] = [];
  yield* produce<string>(async (emit) => {
    await readJsonSnapshot(chunks, {
      items: async (kind, items) => {
        const key = kind === 'users' ? 'user' : 'group';
        await emit(items.map((item) => `{"${key}":${JSON.stringify(item)}}\n`).join(''));
      },
      problem: (where: ProblemPath, reason: string) => problems.push(`${formatPath(where)}: ${reason}`),
    });
  });
  // Thrown before the body ends: the bridge never sees a complete request, so nothing is staged.
  if (problems.length > 0)
    throw new CliError(
      'file_not_json',
      `${path} is not a snapshot: ${problems.join('; ')}`,
      `fix it: ${SNAPSHOT_FORM}`,
    );
}

/** The file errors as the CLI says them: unreadable, or not JSON with the line and column. */
async function* guardReads(
  path: string,
  body: AsyncIterable<string | Buffer>,
): AsyncGenerator<string | Buffer> {
  try {
    yield* body;
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw notJsonAt(path, error);
    if (error instanceof CliError) throw error;
    throw fileUnreadable(path, error);
  }
}

function notJsonAt(path: string, error: JsonSyntaxError): CliError {
  const hint = `fix it: ${SNAPSHOT_FORM}`;
  const within = error.itemText === undefined ? undefined : jsonSyntaxError(error.itemText);
  if (within === undefined) {
    const { line, column } = error.position;
    return new CliError(
      'file_not_json',
      `${path} is not JSON (${error.message}, at line ${line}, column ${column})`,
      hint,
    );
  }
  const line = error.position.line + within.line - 1;
  const column = within.line === 1 ? error.position.column + within.column - 1 : within.column;
  const found = `unexpected ${within.found ?? 'end of file'}`;
  return new CliError(
    'file_not_json',
    `${path} is not JSON (${found} at line ${line}, column ${column})`,
    hint,
  );
}

/**
 * A push-style producer as an async iterable: each `emit` waits until the consumer has taken the
 * value, so at most one value is held (the upload's back-pressure reaches the file reader).
 */
async function* produce<T>(run: (emit: (value: T) => Promise<void>) => Promise<void>): AsyncGenerator<T> {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  let taken: (() => void) | undefined;
  let done = false;
  let failure: unknown;
  const emit = (value: T) =>
    new Promise<void>((resolve) => {
      queue.push(value);
      taken = resolve;
      wake?.();
    });
  void run(emit).then(
    () => ((done = true), wake?.()),
    (error: unknown) => ((failure = error), (done = true), wake?.()),
  );
  for (;;) {
    if (queue.length > 0) {
      yield queue.shift() as T;
      taken?.();
      continue;
    }
    if (done) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  if (failure !== undefined) throw failure;
}

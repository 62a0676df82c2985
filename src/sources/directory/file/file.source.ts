import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { BridgeError, isBridgeError } from '../../../domain/errors.js';
import type { Snapshot } from '../../../domain/identity.js';
import { feedNdjson, looksLikeNdjson, MAX_SNAPSHOT_ITEM_BYTES } from '../../../domain/snapshot-ndjson.js';
import type { SnapshotSink } from '../../../domain/snapshot-sink.js';
import { splitLines } from '../../../domain/text-lines.js';
import { collectSnapshot } from '../collect-snapshot.js';
import type { DirectorySource, ReadOptions } from '../directory-source.js';
import { JsonSyntaxError, readJsonSnapshot } from './json-snapshot-stream.js';

/**
 * The `file` directory source: a snapshot file (SPEC §5.4) read again at every full sync, so that
 * whatever writes it (an HR export, a script) only has to replace it — preferably by writing a new
 * file and renaming it over the old one, so that a sync never reads half a file. Two forms: a JSON
 * snapshot document, or NDJSON (one `{"user": …}` or `{"group": …}` per line) — by the extension
 * `.ndjson` / `.jsonl`, else by the first line. Either is read as a stream, item by item.
 */

export type SnapshotFileFormat = 'json' | 'ndjson';

/** What a fingerprint reads of the file at a time. */
const HASH_BUFFER_BYTES = 1 << 20;

export interface FileSourceOptions {
  /** Bytes read at a time (tests make it tiny, so items span chunks). */
  highWaterMark?: number;
}

export class FileDirectorySource implements DirectorySource {
  constructor(
    private readonly path: string,
    private readonly options: FileSourceOptions = {},
  ) {}

  get label(): string {
    return `The directory file ${this.path}`;
  }

  read(options: ReadOptions = {}): Promise<Snapshot> {
    return collectSnapshot(this, options);
  }

  async stream(sink: SnapshotSink, options: ReadOptions = {}): Promise<void> {
    const { signal } = options;
    signal?.throwIfAborted();
    try {
      const format = await snapshotFileFormat(this.path);
      const chunks = createReadStream(this.path, {
        signal,
        ...(this.options.highWaterMark === undefined ? {} : { highWaterMark: this.options.highWaterMark }),
      });
      if (format === 'ndjson') await feedNdjson(splitLines(chunks, MAX_SNAPSHOT_ITEM_BYTES), sink);
      else
        await readJsonSnapshot(chunks, {
          items: (kind, items) => sink.add(kind, items),
          problem: sink.problem,
        });
    } catch (error) {
      throw this.failure(error, signal);
    }
  }

  /**
   * The SHA-256 of the file's bytes as they are now: equal digests, equal reads. Read through one
   * buffer, so hashing a large file leaves no trail of chunks behind.
   */
  async fingerprint(options: ReadOptions = {}): Promise<string> {
    const { signal } = options;
    const hash = createHash('sha256');
    try {
      const file = await open(this.path, 'r');
      try {
        const buffer = Buffer.allocUnsafe(HASH_BUFFER_BYTES);
        for (;;) {
          signal?.throwIfAborted();
          const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
          if (bytesRead === 0) break;
          hash.update(buffer.subarray(0, bytesRead));
        }
      } finally {
        await file.close();
      }
    } catch (error) {
      throw this.failure(error, signal);
    }
    return `sha256:${hash.digest('hex')}`;
  }

  private failure(error: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted === true) return signal.reason;
    if (error instanceof JsonSyntaxError) {
      return new BridgeError('source_invalid', `${this.label} is not JSON: ${error.message}`, {
        problems: [`snapshot: not JSON (${error.message})`],
        cause: error,
      });
    }
    if (isBridgeError(error, 'invalid_input')) {
      return new BridgeError(
        'source_invalid',
        `${this.label} is not a snapshot: ${error.problems[0] ?? error.message}`,
        {
          problems: [...error.problems],
          cause: error,
        },
      );
    }
    if (error instanceof BridgeError) return error;
    return new BridgeError(
      'source_unavailable',
      `Cannot read the directory file ${this.path}: ${reason(error)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * JSON or NDJSON: `.ndjson` and `.jsonl` are NDJSON, `.json` is JSON; otherwise NDJSON when the
 * first line is a whole `{"user": …}`, `{"group": …}` or `{"options": …}` object.
 */
export async function snapshotFileFormat(path: string): Promise<SnapshotFileFormat> {
  const lower = path.toLowerCase();
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson';
  if (lower.endsWith('.json')) return 'json';
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const text = head.toString('utf8', 0, bytesRead).replace(/^\uFEFF/, '');
    const end = text.indexOf('\n');
    return looksLikeNdjson(end === -1 ? text : text.slice(0, end)) ? 'ndjson' : 'json';
  } finally {
    await file.close();
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
